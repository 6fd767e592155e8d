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
-- Time: ARGV[1] is the client's ns since the epoch, or 'server': the
-- server's TIME in µs minus the server epoch (ARGV[6]), times 1000 (past
-- the horizon: an error reply).
--
-- KEYS[1] the TAT   ARGV[1] now   ARGV[2] n   ARGV[3] L'   ARGV[4] T
-- ARGV[5] τ   ARGV[6] server epoch µs   ARGV[7] horizon ns   ARGV[8] PEXPIRE ms
-- Returns 1 (admit) or 0 (reject).
local now
if ARGV[1] == 'server' then
    local time = redis.call('TIME')
    local us = tonumber(time[1]) * 1000000 + tonumber(time[2]) - tonumber(ARGV[6])
    if us < 0 then
        us = 0
    end
    now = us * 1000
    if now > tonumber(ARGV[7]) then
        return redis.error_reply('gcra: server time past the 2^53 horizon')
    end
else
    now = tonumber(ARGV[1])
end
local n = tonumber(ARGV[2])
local T = tonumber(ARGV[4])
local t = now * tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]) or 0)
local ahead = 0
if tat > t then
    ahead = tat - t
end
if ahead > tonumber(ARGV[5]) - (n - 1) * T then
    return 0
end
local base = tat
if t > base then
    base = t
end
redis.call('SET', KEYS[1], base + n * T, 'PX', ARGV[8])
return 1
