-- The webhook outbox half of every scan transition (see `crate::webhooks`),
-- prepended to the transition scripts: `emit_event(scan key, event type, o)`
-- writes one pending delivery per webhook of the scan's account that wants
-- the event, in the transition's own script, so the status and its event are
-- one atomic write. ARGV[o .. o+3] are the EventArgs. It is
-- crate::store::Webhook::wants in Lua, and the ids are
-- crate::webhooks::delivery_id's. The delivery stores the scan's hash
-- fields as the transition left them (`scan_fields`) instead of a body; the
-- body is rendered from them when the delivery is read (delivery_from_stored).
--
-- It reads the account's webhooks under keys it builds from the prefix (not
-- passed as KEYS), which a single Redis allows; on Redis Cluster the prefix
-- must be a hash tag so every key of the deployment is in one slot.
local function emit_event(scan_key, event_type, o)
  local prefix, digits, at, at_us = ARGV[o], ARGV[o + 1], ARGV[o + 2], ARGV[o + 3]
  local fields = redis.call('HGETALL', scan_key)
  local snap = {}
  for i = 1, #fields, 2 do snap[fields[i]] = fields[i + 1] end
  local ok, base = pcall(cjson.decode, snap['json'])
  local site = ok and type(base) == 'table' and base['site_id'] or nil
  local hooks = redis.call('ZRANGEBYLEX', prefix .. ':account:' .. snap['account_id'] .. ':webhooks', '-', '+')
  local n = 0
  for _, hid in ipairs(hooks) do
    local raw = redis.call('GET', prefix .. ':webhook:' .. hid)
    -- A record that does not decode cannot be delivered to: skip it rather
    -- than fail the script halfway (Redis does not roll back a failed script).
    local decoded, w = false, nil
    if raw then decoded, w = pcall(cjson.decode, raw) end
    if decoded and type(w) == 'table' then
      local wants = w['enabled'] == true
        and (w['site_id'] == nil or w['site_id'] == cjson.null or w['site_id'] == site)
      if wants then
        wants = false
        for _, e in ipairs(type(w['events']) == 'table' and w['events'] or {}) do
          if e == event_type then wants = true end
        end
      end
      if wants then
        n = n + 1
        local id = 'dlv_' .. digits .. string.format('%02x', n)
        redis.call('SET', prefix .. ':delivery:' .. id, cjson.encode({
          id = id, webhook_id = hid, account_id = w['account_id'],
          event_id = 'evt_' .. digits, event_type = event_type,
          status = 'pending', attempts = 0, next_attempt_at = at, created_at = at,
          scan_fields = snap }))
        redis.call('ZADD', prefix .. ':webhook:' .. hid .. ':deliveries', 0, id)
        redis.call('ZADD', prefix .. ':outbox', at_us, id)
      end
    end
  end
  return n
end
