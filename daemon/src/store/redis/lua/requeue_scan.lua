-- KEYS: scan, running. ARGV: scan id, then the EventArgs (2..5). A
-- running scan whose job went back to the queue is `queued` again (and a
-- `scan.queued` event says so).
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return 0 end
redis.call('HSET', KEYS[1], 'status', 'queued')
redis.call('SREM', KEYS[2], ARGV[1])
emit_event(KEYS[1], 'scan.queued', 2)
return 1
