-- drl.lua — the store grd and fps share (drl_demand.h's drl_store), one key
-- of it: each node's newest demand estimate and their sum, the answer to
-- each sync (what drl_store_serve answers). Time as window.lua keeps it: a
-- base in s, the newest time used in ns after it.
--
-- KEYS[1] the key's hash: 'm' struct.pack('<ddd', base, last, sum); 'n'
--         followed by a node's number: its newest estimate, in decimal
-- ARGV[1] struct.pack('<dddd', t_s, t_ns, node, value)
-- ARGV[2] PEXPIRE ms
-- Returns {sum, -1, base, at}.
local MAX = 9007199254740991
local t_s, t_ns, node, value = struct.unpack('<dddd', ARGV[1])
local field = 'n' .. string.format('%d', node)
local got = redis.call('HMGET', KEYS[1], 'm', field)
local base, last, sum = t_s, 0, 0
if got[1] then
    base, last, sum = struct.unpack('<ddd', got[1])
end
local now = (t_s - base) * 1e9 + t_ns
if now < last then
    now = last
end
if now > MAX then
    return redis.error_reply('coord drl: time 2^53 ns past the key\'s base (104 days)')
end
sum = sum - (tonumber(got[2]) or 0) + value
if sum > MAX then
    return redis.error_reply('coord drl: sum past 2^53')
end
redis.call('HSET', KEYS[1], 'm', struct.pack('<ddd', base, now, sum), field,
    string.format('%d', value))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {sum, -1, base, now}
