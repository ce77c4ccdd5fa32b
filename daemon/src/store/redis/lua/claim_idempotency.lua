-- KEYS: the account's key index, the key's record. ARGV: now µs, TTL µs,
-- the cap, the record JSON, the key hash, TTL ms, the record keys' prefix
-- (`…idem:{account}:`), lease end µs, first use (JSON). Forgets expired keys and the oldest
-- past the cap; returns the live record's JSON, or false after claiming.
local cutoff = tonumber(ARGV[1]) - tonumber(ARGV[2])
for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. cutoff)) do
  redis.call('DEL', ARGV[7] .. m)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. cutoff)
local cur = redis.call('HMGET', KEYS[2], 'record', 'done', 'lease')
if cur[1] and (cur[2] == '1' or tonumber(cur[3] or '0') > tonumber(ARGV[1])) then
  return cur[1]
end
redis.call('ZREM', KEYS[1], ARGV[5])
local n = redis.call('ZCARD', KEYS[1])
local cap = tonumber(ARGV[3])
if n >= cap then
  for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, n - cap)) do
    redis.call('DEL', ARGV[7] .. m)
  end
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, n - cap)
end
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[2], 'record', ARGV[4], 'done', '0', 'lease', ARGV[8], 'created', ARGV[9])
redis.call('PEXPIRE', KEYS[2], ARGV[6])
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return false
