-- KEYS: scan, report, running, unfinished, stats, quota of the scan's day,
-- the report's upload (a list of chunks appended beforehand, renamed to the
-- report when the scan completes, dropped otherwise), the scan's pictures,
-- their upload (a hash written beforehand, renamed and dropped like the
-- report's: the pictures live exactly as long as the report). ARGV: scan id, kind
-- (`completed`|`failed`), finished_at JSON, summary JSON or error, pages,
-- the EventArgs (6..9). A scan failed before its first page is given
-- back to the quota. Returns the scan's fields (false: no scan).
local st = redis.call('HGET', KEYS[1], 'status')
if not st then return false end
if st == 'completed' or st == 'failed' or st == 'canceled' then
  redis.call('DEL', KEYS[7], KEYS[9])
  return redis.call('HGETALL', KEYS[1])
end
if ARGV[2] == 'completed' then
  redis.call('HSET', KEYS[1], 'status', 'completed', 'summary', ARGV[4])
  if redis.call('HEXISTS', KEYS[1], 'p_done') == 1 then
    redis.call('HSET', KEYS[1], 'p_done', ARGV[5], 'p_queued', '0')
  end
  redis.call('DEL', KEYS[2])
  if redis.call('EXISTS', KEYS[7]) == 1 then
    redis.call('RENAME', KEYS[7], KEYS[2])
    redis.call('PERSIST', KEYS[2])
  end
  redis.call('DEL', KEYS[8])
  if redis.call('EXISTS', KEYS[9]) == 1 then
    redis.call('RENAME', KEYS[9], KEYS[8])
    redis.call('PERSIST', KEYS[8])
  end
  redis.call('HINCRBY', KEYS[5], 'completed', 1)
  redis.call('HINCRBY', KEYS[5], 'pages', ARGV[5])
else
  redis.call('HSET', KEYS[1], 'status', 'failed', 'error', ARGV[4])
  redis.call('DEL', KEYS[8], KEYS[9])
  redis.call('HINCRBY', KEYS[5], 'failed', 1)
  local done = redis.call('HGET', KEYS[1], 'p_done')
  if not done or done == '0' then refund(KEYS[1], KEYS[6]) end
end
redis.call('HSET', KEYS[1], 'finished_at', ARGV[3])
redis.call('SREM', KEYS[3], ARGV[1])
redis.call('SREM', KEYS[4], ARGV[1])
emit_event(KEYS[1], 'scan.' .. ARGV[2], 6)
return redis.call('HGETALL', KEYS[1])
