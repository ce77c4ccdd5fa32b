-- How many consumers that render announced themselves within the TTL, on
-- the server's clock.
-- KEYS: the render workers' sorted set. ARGV: TTL (ms).
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
return redis.call('ZCOUNT', KEYS[1], now - tonumber(ARGV[1]), '+inf')
