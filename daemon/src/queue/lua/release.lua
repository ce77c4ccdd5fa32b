-- Puts a job held under a lease back at the end of its stream (lease
-- ended), with an optional reason kept as its last failure. Its attempts
-- are kept, or with ARGV[5] `1` this delivery's is taken back (a hand-back
-- that is not the job's fault).
-- KEYS: job. ARGV: group, scan id, reason, lease, `1` to take the attempt
-- back or `0`. Returns 1, or 0 when the lease moved on.
if redis.call('HGET', KEYS[1], 'lease') ~= ARGV[4] then return 0 end
local s = redis.call('HGET', KEYS[1], 'stream')
local id = redis.call('HGET', KEYS[1], 'entry')
redis.call('XACK', s, ARGV[1], id)
redis.call('XDEL', s, id)
local nid = redis.call('XADD', s, '*', 'scan_id', ARGV[2], 'priority', redis.call('HGET', KEYS[1], 'priority'))
redis.call('HSET', KEYS[1], 'entry', nid)
redis.call('HDEL', KEYS[1], 'lease')
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'last_error', ARGV[3]) end
if ARGV[5] == '1' then
  local n = tonumber(redis.call('HGET', KEYS[1], 'attempts') or '0') or 0
  if n > 0 then redis.call('HSET', KEYS[1], 'attempts', n - 1) end
end
return 1
