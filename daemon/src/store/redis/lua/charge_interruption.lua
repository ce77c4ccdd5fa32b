-- KEYS: the scan's analysis set, its crashes hash. Charges the pages in
-- analysis (clearing the set) or, with none, an unattributed interruption.
-- Returns {unattributed, page, count, page, count, ...}.
local pages = redis.call('SMEMBERS', KEYS[1])
if #pages == 0 then
  return {tostring(redis.call('HINCRBY', KEYS[2], 'unattributed', 1))}
end
redis.call('DEL', KEYS[1])
local out = {redis.call('HGET', KEYS[2], 'unattributed') or '0'}
for _, p in ipairs(pages) do
  table.insert(out, p)
  table.insert(out, tostring(redis.call('HINCRBY', KEYS[2], 'p:' .. p, 1)))
end
return out
