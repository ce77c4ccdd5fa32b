-- Records what a run did, unless a later run was claimed since (or the
-- schedule is gone). KEYS: schedule hash. ARGV: the run's claim time (µs),
-- the outcome (JSON). Returns 1 when recorded.
if redis.call('HGET', KEYS[1], 'last_run') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'outcome', ARGV[2])
return 1
