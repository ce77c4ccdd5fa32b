-- KEYS: the key's record. ARGV: the answered record JSON, the first use's
-- `created_at` as stored. Saves it only over the claim it answers.
if redis.call('HGET', KEYS[1], 'created') ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[1], 'done', '1')
return 1
