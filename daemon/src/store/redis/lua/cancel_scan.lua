-- KEYS: scan, running, unfinished, stats, quota of the scan's day. ARGV:
-- scan id, account id, finished_at JSON, then the EventArgs (4..7). A
-- scan canceled while queued is given back to the quota. Returns {tag,
-- fields...}: tag `ok`, `notfound` or `conflict` (then the status).
local st = redis.call('HGET', KEYS[1], 'status')
if not st or redis.call('HGET', KEYS[1], 'account_id') ~= ARGV[2] then return {'notfound'} end
if st == 'queued' then refund(KEYS[1], KEYS[5]) end
if st == 'queued' or st == 'running' then
  redis.call('HSET', KEYS[1], 'status', 'canceled', 'finished_at', ARGV[3])
  redis.call('SREM', KEYS[2], ARGV[1])
  redis.call('SREM', KEYS[3], ARGV[1])
  redis.call('HINCRBY', KEYS[4], 'canceled', 1)
  emit_event(KEYS[1], 'scan.canceled', 4)
elseif st ~= 'canceled' then
  return {'conflict', st}
end
local out = {'ok'}
for _, v in ipairs(redis.call('HGETALL', KEYS[1])) do table.insert(out, v) end
return out
