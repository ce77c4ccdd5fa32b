-- KEYS: account, site, account sites. ARGV: site id, account id, JSON.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[2], 'json', ARGV[3], 'account_id', ARGV[2])
redis.call('ZADD', KEYS[3], 0, ARGV[1])
return 1
