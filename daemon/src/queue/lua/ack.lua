-- Acknowledges a job held under a lease and forgets it.
-- KEYS: job. ARGV: group, lease. Returns 1, or 0 when the lease moved on.
if redis.call('HGET', KEYS[1], 'lease') ~= ARGV[2] then return 0 end
local s = redis.call('HGET', KEYS[1], 'stream')
local id = redis.call('HGET', KEYS[1], 'entry')
redis.call('XACK', s, ARGV[1], id)
redis.call('XDEL', s, id)
redis.call('DEL', KEYS[1])
return 1
