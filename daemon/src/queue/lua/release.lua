-- Puts a job held under a lease back at the end of its stream (attempts
-- kept, lease ended), with an optional reason kept as its last failure.
-- KEYS: job. ARGV: group, scan id, reason, lease. Returns 1, or 0 when the
-- lease moved on.
if redis.call('HGET', KEYS[1], 'lease') ~= ARGV[4] then return 0 end
local s = redis.call('HGET', KEYS[1], 'stream')
local id = redis.call('HGET', KEYS[1], 'entry')
redis.call('XACK', s, ARGV[1], id)
redis.call('XDEL', s, id)
local nid = redis.call('XADD', s, '*', 'scan_id', ARGV[2], 'priority', redis.call('HGET', KEYS[1], 'priority'))
redis.call('HSET', KEYS[1], 'entry', nid)
redis.call('HDEL', KEYS[1], 'lease')
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'last_error', ARGV[3]) end
return 1
