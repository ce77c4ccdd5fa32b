-- Claims one run of a schedule: only while its `next` is still the run's due
-- time, so of any number of processes racing for the run exactly one moves it.
-- KEYS: schedule hash, due sorted set. ARGV: schedule id, due time (µs),
-- next run (µs, or '' for none), claim time (µs). Returns 1 when claimed.
if redis.call('HGET', KEYS[1], 'next') ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'next', ARGV[3], 'last_run', ARGV[4], 'outcome', '')
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[2], ARGV[1])
else
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
end
return 1
