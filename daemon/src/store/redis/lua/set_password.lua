-- KEYS: token, user, user's sessions. ARGV: the token JSON as read, 1 when
-- still valid, password hash, password_set_at JSON, the session key prefix.
-- Consumes the token; when valid sets the password and ends the user's
-- sessions (their keys are built from the prefix: one Redis, not a cluster).
-- Returns 1 when the password was set.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
if ARGV[2] ~= '1' or redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
redis.call('HSET', KEYS[2], 'password_hash', ARGV[3], 'password_set_at', ARGV[4])
for _, h in ipairs(redis.call('SMEMBERS', KEYS[3])) do redis.call('DEL', ARGV[5] .. h, ARGV[5] .. h .. ':flash') end
redis.call('DEL', KEYS[3])
return 1
