-- Replaces a schedule's settings and next run, keeping its run record
-- (`last_run`, `outcome`). KEYS: schedule hash, due sorted set. ARGV:
-- schedule id, settings JSON, next run (µs, or '' for none: disabled).
-- Returns 0 when the schedule is gone.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'json', ARGV[2], 'next', ARGV[3])
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[2], ARGV[1])
else
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
end
return 1
