-- KEYS: account, key, key hash, all keys, account keys. ARGV: key id,
-- account id, record JSON. Returns 0 when the account does not exist.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[2], 'json', ARGV[3], 'account_id', ARGV[2])
redis.call('SET', KEYS[3], ARGV[1])
redis.call('ZADD', KEYS[4], 0, ARGV[1])
redis.call('ZADD', KEYS[5], 0, ARGV[1])
return 1
