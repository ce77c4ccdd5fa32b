-- KEYS: scan. ARGV: done, queued, errors, phase, links checked, links
-- total. Returns the status (false: no scan).
local st = redis.call('HGET', KEYS[1], 'status')
if not st then return false end
if st == 'running' then
  redis.call('HSET', KEYS[1], 'p_done', ARGV[1], 'p_queued', ARGV[2], 'p_errors', ARGV[3],
    'p_phase', ARGV[4], 'p_links_checked', ARGV[5], 'p_links_total', ARGV[6])
end
return st
