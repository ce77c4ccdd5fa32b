-- Moves a job held under a lease to the dead-letter stream (with its
-- attempts and the reason) and forgets it.
-- KEYS: job, dead stream. ARGV: group, scan id, reason, at, lease.
-- Returns 1, or 0 when the lease moved on.
if redis.call('HGET', KEYS[1], 'lease') ~= ARGV[5] then return 0 end
local s = redis.call('HGET', KEYS[1], 'stream')
local id = redis.call('HGET', KEYS[1], 'entry')
redis.call('XACK', s, ARGV[1], id)
redis.call('XDEL', s, id)
local attempts = redis.call('HGET', KEYS[1], 'attempts') or '0'
redis.call('XADD', KEYS[2], '*', 'scan_id', ARGV[2], 'attempts', attempts, 'reason', ARGV[3], 'at', ARGV[4])
redis.call('DEL', KEYS[1])
return 1
