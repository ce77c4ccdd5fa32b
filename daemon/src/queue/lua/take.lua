-- Takes the next job for this consumer under a new lease.
-- KEYS: the consumer's streams, by priority (high, normal, low) and within
-- a priority by lane (the render lane first for a consumer that renders:
-- only it can run those), then the round counter and the lease counter.
-- ARGV: group, consumer, prefix, lanes per priority (1 or 2).
-- Returns {scan_id, priority, attempt, lease, render (1/0)} or false.
--
-- First the entries already in this consumer's pending list that no delivery
-- holds (brought in by a blocking read, or reclaimed from a dead worker by
-- the reclaimer), highest priority first; then new entries in weighted rounds
-- of 8 (5 start with high, 2 with normal, 1 with low).
local group, consumer, prefix = ARGV[1], ARGV[2], ARGV[3]
local lanes = tonumber(ARGV[4])
local nstreams = 3 * lanes
local round_key, lease_key = KEYS[nstreams + 1], KEYS[nstreams + 2]

local function fields_of(stream, id)
  local r = redis.call('XRANGE', stream, id, id)
  if #r == 0 then return nil end
  return r[1][2]
end

local function scan_id_of(f)
  if type(f) ~= 'table' then return nil end
  for i = 1, #f, 2 do if f[i] == 'scan_id' then return f[i + 1] end end
  return nil
end

-- Drops a stream entry that is not its job's current one (the job was
-- acknowledged, released or dead-lettered since it was written).
local function drop(stream, id)
  redis.call('XACK', stream, group, id)
  redis.call('XDEL', stream, id)
end

-- Whether the i-th stream of KEYS is a render lane.
local function is_render(i)
  if lanes == 2 and (i - 1) % 2 == 0 then return 1 end
  return 0
end

local function take(stream, id, f, render)
  local scan_id = scan_id_of(f)
  local jk = prefix .. ':job:' .. (scan_id or '')
  if not scan_id or redis.call('HGET', jk, 'entry') ~= id then
    drop(stream, id)
    return nil
  end
  local lease = redis.call('INCR', lease_key)
  redis.call('HSET', jk, 'lease', lease)
  local n = redis.call('HINCRBY', jk, 'attempts', 1)
  return {scan_id, redis.call('HGET', jk, 'priority'), n, lease, render}
end

for i = 1, nstreams do
  local pending = redis.call('XPENDING', KEYS[i], group, '-', '+', 64, consumer)
  for _, p in ipairs(pending) do
    local id = p[1]
    local f = fields_of(KEYS[i], id)
    if not f then
      drop(KEYS[i], id)
    else
      local jk = prefix .. ':job:' .. (scan_id_of(f) or '')
      -- Held by a delivery of this process: leave it.
      if redis.call('HGET', jk, 'entry') ~= id or redis.call('HEXISTS', jk, 'lease') == 0 then
        local t = take(KEYS[i], id, f, is_render(i))
        if t then return t end
      end
    end
  end
end

local round = tonumber(redis.call('GET', round_key) or '0') % 8
local order = {1, 2, 3}
if round == 7 then order = {3, 1, 2} elseif round >= 5 then order = {2, 1, 3} end
for _, p in ipairs(order) do
  for l = 1, lanes do
    local i = (p - 1) * lanes + l
    local s = KEYS[i]
    local res = redis.call('XREADGROUP', 'GROUP', group, consumer, 'COUNT', 1, 'STREAMS', s, '>')
    if res then
      for _, r in ipairs(res) do
        for _, e in ipairs(r[2]) do
          local t = take(s, e[1], e[2], is_render(i))
          if t then
            redis.call('INCR', round_key)
            return t
          end
        end
      end
    end
  end
end
return false
