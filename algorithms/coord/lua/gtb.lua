-- gtb.lua — gtb's store (gtb.c), one key of it: every node's hits so far,
-- the answer to each sync (what gtb_serve answers). Time as window.lua
-- keeps it: a base in s, the newest time used in ns after it.
--
-- KEYS[1] a string: struct.pack('<ddd', base, last, hits)
-- ARGV[1] struct.pack('<ddd', t_s, t_ns, value)
-- ARGV[2] PX ms
-- Returns {hits, -1, base, at}.
local MAX = 9007199254740991
local t_s, t_ns, value = struct.unpack('<ddd', ARGV[1])
local base, last, hits = t_s, 0, 0
local packed = redis.call('GET', KEYS[1])
if packed then
    base, last, hits = struct.unpack('<ddd', packed)
end
local now = (t_s - base) * 1e9 + t_ns
if now < last then
    now = last
end
if now > MAX then
    return redis.error_reply('coord gtb: time 2^53 ns past the key\'s base (104 days)')
end
hits = hits + value
if hits > MAX then
    return redis.error_reply('coord gtb: hits past 2^53')
end
redis.call('SET', KEYS[1], struct.pack('<ddd', base, now, hits), 'PX', ARGV[2])
return {hits, -1, base, now}
