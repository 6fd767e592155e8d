-- window.lua — the store central, lease and report share (coord.h's
-- struct rl_coord_window_store), one key of it: an exact sliding sum of
-- amounts stamped with times, each entry with an id by which part of it
-- may be taken back. Each op answers as the strategy's serve in C does
-- (central.c, lease.c, report.c): a test holds them to the same answers.
--
-- Time (docs/nodes.md, "The store on Redis"): the node's clock as whole
-- seconds and ns, since an epoch ~1.8e18 ns is past Lua's exact 2^53. A
-- key keeps its own base (the seconds of its first call) and every time
-- as ns after it; the time used is max(the node's, the newest used on
-- this key), so a node whose clock is behind never moves the key back.
--
-- KEYS[1] the key's hash:
--   'm'                       struct.pack('<ddddd', base, last, first, next, sum):
--                             base s, the newest time used (ns after base),
--                             the oldest entry's id, the next entry's id, the sum
--   struct.pack('<d', id)     struct.pack('<dd', t, amount): entry id
-- ARGV[1] struct.pack('<ddddddd', op, t_s, t_ns, value, ref, L, I): op 0
--         decide (central), 1 take, 2 return (lease), 3 sync (report);
--         ref a grant's id (return; -1 none)
-- ARGV[2] PEXPIRE ms
-- Returns {answer, ref, base, at}: take's ref is the grant's id (-1: none
-- granted); the time used is base s + at ns.
local MAX = 9007199254740991
local op, t_s, t_ns, value, ref, limit, interval = struct.unpack('<ddddddd', ARGV[1])
local key = KEYS[1]
local base, last, first, nxt, sum = t_s, 0, 0, 0, 0
local meta = redis.call('HGET', key, 'm')
if meta then
    base, last, first, nxt, sum = struct.unpack('<ddddd', meta)
end
local now = (t_s - base) * 1e9 + t_ns
if now < last then
    now = last
end
if now > MAX then
    return redis.error_reply('coord window: time 2^53 ns past the key\'s base (104 days)')
end

-- Forgets the entries stamped at or before now − I (coord_window.c's expire).
local function expire()
    local cut = now - interval
    while first < nxt do
        local field = struct.pack('<d', first)
        local t, amount = struct.unpack('<dd', redis.call('HGET', key, field))
        if t > cut then
            return
        end
        redis.call('HDEL', key, field)
        sum = sum - amount
        first = first + 1
    end
end

local writes = {}
-- Stamps amount now (the callers keep sum + amount within 2^53).
local function add(amount)
    writes[#writes + 1] = struct.pack('<d', nxt)
    writes[#writes + 1] = struct.pack('<dd', now, amount)
    nxt = nxt + 1
    sum = sum + amount
    return nxt - 1
end

local answer, id = 0, -1
if op == 0 then
    expire()
    if sum + value <= limit then
        add(value)
        answer = 1
    end
elseif op == 1 then
    expire()
    local granted = limit - sum
    if granted < 0 then
        granted = 0
    end
    if value < granted then
        granted = value
    end
    if granted > 0 then
        id = add(granted)
        answer = granted
    end
elseif op == 2 then
    -- no expire first, as lease.c's return: an entry past the window but
    -- not yet forgotten gives back too, and the next expire drops the rest
    if ref >= first and ref < nxt then
        local field = struct.pack('<d', ref)
        local t, held = struct.unpack('<dd', redis.call('HGET', key, field))
        local back = value < held and value or held
        writes[1] = field
        writes[2] = struct.pack('<dd', t, held - back)
        sum = sum - back
    end
elseif op == 3 then
    expire()
    if value > 0 then
        if sum + value > MAX then
            return redis.error_reply('coord window: sum past 2^53')
        end
        add(value)
    end
    answer = sum
else
    return redis.error_reply('coord window: unknown op')
end
redis.call('HSET', key, 'm', struct.pack('<ddddd', base, now, first, nxt, sum), unpack(writes))
redis.call('PEXPIRE', key, ARGV[2])
return {answer, id, base, now}
