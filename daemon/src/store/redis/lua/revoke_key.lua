-- KEYS: key. ARGV: revoked_at JSON. Returns 0 when there is no such key.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSETNX', KEYS[1], 'revoked_at', ARGV[1])
return 1
