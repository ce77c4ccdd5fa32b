-- Adds a job unless it is already queued or in flight.
-- KEYS: stream, job. ARGV: scan id, priority.
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
local id = redis.call('XADD', KEYS[1], '*', 'scan_id', ARGV[1], 'priority', ARGV[2])
redis.call('HSET', KEYS[2], 'stream', KEYS[1], 'entry', id, 'attempts', 0, 'priority', ARGV[2])
return 1
