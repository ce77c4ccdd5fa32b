-- KEYS: the scan's analysis set. ARGV: the pages in analysis now (none: clear).
redis.call('DEL', KEYS[1])
if #ARGV > 0 then redis.call('SADD', KEYS[1], unpack(ARGV)) end
return 1
