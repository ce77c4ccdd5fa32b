-- KEYS: site, account sites. ARGV: site id, account id.
if redis.call('HGET', KEYS[1], 'account_id') ~= ARGV[2] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
