-- Records that a consumer which renders is alive, on the server's clock (so
-- workers and API processes on different hosts agree), and forgets entries
-- long gone (bounded growth when workers die without withdrawing).
-- KEYS: the render workers' sorted set. ARGV: consumer, forget after (ms).
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
return 1
