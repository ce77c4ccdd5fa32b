-- Moves the entries of one stream idle longer than the visibility timeout
-- (their worker stopped heartbeating: dead, frozen, cut off) to this
-- consumer's pending list and ends their leases, so their old holder can no
-- longer ack, release, heartbeat or dead-letter them; `take.lua` then hands
-- them out under new leases.
--
-- Entries this consumer already owns are left alone: their slots heartbeat
-- from this process, and taking them back from itself would only charge the
-- scan a delivery when the process is briefly starved of CPU. (This is why
-- the script pairs XPENDING IDLE with XCLAIM rather than using XAUTOCLAIM,
-- which cannot skip an owner.)
-- KEYS: stream. ARGV: group, consumer, min idle ms, prefix.
-- Returns how many jobs were reclaimed.
local group, consumer, idle, prefix = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local n = 0
-- Bounded: at most 100 entries per run; the next run goes on.
local pending = redis.call('XPENDING', KEYS[1], group, 'IDLE', idle, '-', '+', 100)
for _, p in ipairs(pending) do
  local id, owner = p[1], p[2]
  if owner ~= consumer then
    local claimed = redis.call('XCLAIM', KEYS[1], group, consumer, idle, id)
    local e = claimed[1]
    if type(e) ~= 'table' or type(e[2]) ~= 'table' then
      -- Deleted from the stream while pending: forget it.
      redis.call('XACK', KEYS[1], group, id)
    else
      local f = e[2]
      local scan_id
      for i = 1, #f, 2 do if f[i] == 'scan_id' then scan_id = f[i + 1] end end
      local jk = prefix .. ':job:' .. (scan_id or '')
      if scan_id and redis.call('HGET', jk, 'entry') == id then
        redis.call('HDEL', jk, 'lease')
        n = n + 1
      else
        redis.call('XACK', KEYS[1], group, id)
        redis.call('XDEL', KEYS[1], id)
      end
    end
  end
end
return n
