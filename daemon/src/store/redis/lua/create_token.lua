-- KEYS: user, token. ARGV: token JSON, expiry (ms since the epoch).
-- Returns 0 when the user does not exist.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'PXAT', ARGV[2])
return 1
