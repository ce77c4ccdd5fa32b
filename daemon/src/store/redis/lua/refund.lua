-- Lua: gives scan `KEYS[scan]` back to the quota counter `qkey` (of the
-- day it was created), once; `refunded` marks it.
local function refund(scan, qkey)
  if redis.call('HGET', scan, 'refunded') == '1' then return end
  local used = tonumber(redis.call('GET', qkey) or '0')
  if used and used > 0 then redis.call('DECR', qkey) end
  redis.call('HSET', scan, 'refunded', '1')
end
