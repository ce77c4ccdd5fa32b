-- KEYS: account, user, e-mail index, all users, account users. ARGV: user
-- id, account id, record JSON. Returns 0 without the account, -1 when the
-- e-mail is taken.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('SET', KEYS[3], ARGV[1], 'NX') == false then return -1 end
redis.call('HSET', KEYS[2], 'json', ARGV[3], 'account_id', ARGV[2])
redis.call('ZADD', KEYS[4], 0, ARGV[1])
redis.call('ZADD', KEYS[5], 0, ARGV[1])
return 1
