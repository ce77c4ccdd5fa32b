-- KEYS: scan, running. ARGV: scan id, started_at JSON, then the
-- EventArgs (3..6), then `1` to count an attempt or `0` (a resume).
local st = redis.call('HGET', KEYS[1], 'status')
if not st or (st ~= 'queued' and st ~= 'running') then return false end
redis.call('HSET', KEYS[1], 'status', 'running', 'started_at', ARGV[2], 'p_done', '0', 'p_queued', '0', 'p_errors', '0',
  'p_phase', 'crawl', 'p_links_checked', '0', 'p_links_total', '0')
if ARGV[7] == '1' then redis.call('HINCRBY', KEYS[1], 'attempts', 1) end
redis.call('SADD', KEYS[2], ARGV[1])
emit_event(KEYS[1], 'scan.started', 3)
return redis.call('HGETALL', KEYS[1])
