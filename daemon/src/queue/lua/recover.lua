-- Hands back every job in this consumer's pending lists (at the end of its
-- stream, lease ended): the process is stopping.
-- KEYS: every stream (both lanes). ARGV: group, consumer, prefix. Returns how many.
local group, consumer, prefix = ARGV[1], ARGV[2], ARGV[3]
local n = 0
for i = 1, #KEYS do
  local pending = redis.call('XPENDING', KEYS[i], group, '-', '+', 10000, consumer)
  for _, p in ipairs(pending) do
    local id = p[1]
    local r = redis.call('XRANGE', KEYS[i], id, id)
    local scan_id
    if #r > 0 then
      local f = r[1][2]
      for j = 1, #f, 2 do if f[j] == 'scan_id' then scan_id = f[j + 1] end end
    end
    redis.call('XACK', KEYS[i], group, id)
    redis.call('XDEL', KEYS[i], id)
    local jk = prefix .. ':job:' .. (scan_id or '')
    if scan_id and redis.call('HGET', jk, 'entry') == id then
      local nid = redis.call('XADD', KEYS[i], '*', 'scan_id', scan_id, 'priority', redis.call('HGET', jk, 'priority'))
      redis.call('HSET', jk, 'entry', nid)
      redis.call('HDEL', jk, 'lease')
      n = n + 1
    end
  end
end
return n
