-- KEYS: site, credentials, the credentials index. ARGV: account id, JSON, site id.
-- Only on an existing site of the account.
if redis.call('HGET', KEYS[1], 'account_id') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2])
redis.call('SADD', KEYS[3], ARGV[3])
return 1
