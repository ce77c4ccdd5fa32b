-- KEYS: session, its flash hash. ARGV: name, value, the session's expiry
-- (ms since the epoch). Keeps the value only while the session exists (a
-- sign-out between the read and this script wins); returns 1 when kept.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('PEXPIREAT', KEYS[2], ARGV[3])
return 1
