-- KEYS: key, usage. ARGV: last_used_at JSON, day. Returns 0 when no such key.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'last_used_at', ARGV[1])
redis.call('HINCRBY', KEYS[2], ARGV[2], 1)
return 1
