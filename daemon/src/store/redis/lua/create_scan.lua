-- KEYS: quota, scan, site scans, unfinished. ARGV: limit (-1: none), quota
-- TTL, scan id, account id, record JSON, then the EventArgs (6..9).
-- Returns -1 when the quota is used up.
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local limit = tonumber(ARGV[1])
if limit >= 0 and used >= limit then return -1 end
redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('HSET', KEYS[2], 'json', ARGV[5], 'account_id', ARGV[4], 'status', 'queued', 'attempts', '0')
redis.call('ZADD', KEYS[3], 0, ARGV[3])
redis.call('SADD', KEYS[4], ARGV[3])
emit_event(KEYS[2], 'scan.queued', 6)
return used + 1
