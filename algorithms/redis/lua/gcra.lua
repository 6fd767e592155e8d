-- gcra.lua — redis_gcra: the Generic Cell Rate Algorithm (ITU-T I.371,
-- virtual scheduling) on one key holding the theoretical arrival time TAT,
-- with gcra_cas.c's exact integer arithmetic so that it decides as
-- gcra_cas does on the same trace.
--
-- Ticks as tb_ticks.h: one ns is L' ticks, the emission interval T = I'
-- ticks, the tolerance τ = (B − 1)·T. A missing key is TAT = 0 (full at the
-- epoch). n cells at once conform when the last does: TAT + (n − 1)·T ≤
-- t + τ, i.e. when TAT is at most τ − (n − 1)·T ahead of t; then
-- TAT := max(TAT, t) + n·T. A refusal writes nothing. Every number stays
-- ≤ 2^53 − 1: the caller keeps t within the horizon (2^53 − 1 − B·T)/L' ns,
-- and TAT ≤ t + B·T.
--
-- Lean on purpose (docs/redis.md, "What a script call costs"): a refusal is
-- TIME and one GET, an admit adds one SET with PX (the write and its expiry
-- in one call). Numbers cross as packed doubles (struct, exact below 2^53),
-- not as decimal text: Lua's tonumber and the %.17g Redis applies to a Lua
-- number handed to redis.call are the costly part of a short script.
--
-- Time: ARGV[1]'s now is the client's ns since the epoch, or −1: the
-- server's TIME in µs minus the server epoch, times 1000 (past the horizon:
-- an error reply).
--
-- KEYS[1] the TAT: struct.pack('<d', TAT), 8 bytes
-- ARGV[1] seven little-endian doubles, struct.pack('<ddddddd', ...):
--         now, n, L', T, τ, server epoch µs, horizon ns
-- ARGV[2] PX ms, in decimal: how long the TAT matters
-- Returns 1 (admit) or 0 (reject); anything else at the key is an error
-- reply, never a decision.
local now, n, per_ns, T, tau, epoch_us, horizon = struct.unpack('<ddddddd', ARGV[1])
if now < 0 then
    local time = redis.call('TIME')
    -- TIME's two decimal strings, turned into numbers by the arithmetic
    -- itself (Lua 5.1 coerces them as tonumber would, the same strtod):
    -- two tonumber calls cost the server ~0.1 us a call (docs/redis.md)
    local us = time[1] * 1000000 + time[2] - epoch_us
    if us < 0 then
        us = 0
    end
    now = us * 1000
    if now > horizon then
        return redis.error_reply('gcra: server time past the 2^53 horizon')
    end
end
local t = now * per_ns
local tat = 0
local packed = redis.call('GET', KEYS[1])
if packed then
    if #packed ~= 8 then
        return redis.error_reply('gcra: the key does not hold a packed TAT')
    end
    tat = struct.unpack('<d', packed)
end
local ahead = 0
if tat > t then
    ahead = tat - t
end
if ahead > tau - (n - 1) * T then
    return 0
end
local base = tat
if t > base then
    base = t
end
redis.call('SET', KEYS[1], struct.pack('<d', base + n * T), 'PX', ARGV[2])
return 1
