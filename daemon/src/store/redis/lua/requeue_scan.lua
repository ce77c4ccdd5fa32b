-- KEYS: scan, running. ARGV: scan id, then the EventArgs (2..5), then `1`
-- to give back the attempt the run's start charged (a hand-back that is not
-- the scan's fault) or `0`. A running scan whose job went back to the queue
-- is `queued` again (and a `scan.queued` event says so).
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return 0 end
redis.call('HSET', KEYS[1], 'status', 'queued')
if ARGV[6] == '1' then
  local n = tonumber(redis.call('HGET', KEYS[1], 'attempts') or '0') or 0
  if n > 0 then redis.call('HSET', KEYS[1], 'attempts', n - 1) end
end
redis.call('SREM', KEYS[2], ARGV[1])
emit_event(KEYS[1], 'scan.queued', 2)
return 1
