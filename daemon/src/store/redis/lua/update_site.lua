-- KEYS: site. ARGV: account id, JSON. Only an existing site of the account.
if redis.call('HGET', KEYS[1], 'account_id') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'json', ARGV[2])
return 1
