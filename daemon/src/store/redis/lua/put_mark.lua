-- Sets a site's mark of one fingerprint, unless that adds one past the cap.
-- KEYS: the site's marks hash. ARGV: fingerprint, mark (JSON), cap.
-- Returns 1 when created, 0 when replaced, -1 when the site is full.
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  return 0
end
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return -1 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
