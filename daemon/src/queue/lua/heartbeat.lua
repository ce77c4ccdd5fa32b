-- Renews a lease: resets the entry's idle time so no one reclaims it.
-- KEYS: job. ARGV: group, consumer, lease. Returns 1, or 0 when the lease
-- moved on (reclaimed by another worker, or done).
if redis.call('HGET', KEYS[1], 'lease') ~= ARGV[3] then return 0 end
local s = redis.call('HGET', KEYS[1], 'stream')
local id = redis.call('HGET', KEYS[1], 'entry')
local p = redis.call('XPENDING', s, ARGV[1], id, id, 1)
if #p == 0 or p[1][2] ~= ARGV[2] then return 0 end
redis.call('XCLAIM', s, ARGV[1], ARGV[2], 0, id, 'JUSTID')
return 1
