-- KEYS: session, its flash hash. ARGV: name. Removes the flash and returns
-- {session JSON or false, value or false}: one caller ever gets a value.
local value = redis.call('HGET', KEYS[2], ARGV[1])
if value then redis.call('HDEL', KEYS[2], ARGV[1]) end
return {redis.call('GET', KEYS[1]), value}
