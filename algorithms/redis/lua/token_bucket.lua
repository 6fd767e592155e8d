-- token_bucket.lua — redis_token_bucket and redis_token_bucket_servertime:
-- the article's bucket (a token count and the time it was last brought up
-- to date, the Redis design article §3.4.3) with tb_mutex.c's exact integer
-- arithmetic, so that on the same trace it decides as tb_mutex does.
--
-- Units (tb_ticks.h): with g = gcd(L, I), one ns is L' = L/g ticks and one
-- token I' = I/g ticks; tokens are counted in ticks, capacity B·I'. A
-- missing key is a bucket full at the epoch (tokens = B·I', last = 0).
-- Forward in time, the refill (now − last)·L' fills up to the capacity;
-- a read older than `last` sees the bucket as it stood then (tokens minus
-- what arrived since), never more. An admit takes n·I'; a refusal writes
-- nothing. Every number stays ≤ 2^53 − 1, where doubles are exact: the
-- caller refuses B·I' beyond it and times past the horizon
-- (2^53 − 1 − B·I')/L' ns, so now·L', (now − last)·L' and the sums all fit.
--
-- Lean on purpose (docs/redis.md, "What a script call costs"): the article
-- keeps a hash (HMGET, then HSET and PEXPIRE); here tokens and last are
-- packed in one string, so a refusal is one GET and an admit adds one SET
-- with PX (the write and its expiry in one call). Numbers cross as packed
-- doubles (struct, exact below 2^53), not as decimal text.
--
-- Time: ARGV[1]'s now is the client's ns since the epoch, or −1: the
-- server's TIME in µs minus the server epoch (TIME when the limiter was
-- created), times 1000; a server time past the horizon is an error reply.
--
-- KEYS[1] the bucket: struct.pack('<dd', tokens, last), 16 bytes
-- ARGV[1] seven little-endian doubles, struct.pack('<ddddddd', ...):
--         now, n, L', I', B, server epoch µs, horizon ns
-- ARGV[2] PX ms, in decimal: how long the bucket matters
-- Returns 1 (admit) or 0 (reject); anything else at the key is an error
-- reply, never a decision.
local now, n, per_ns, per_token, burst, epoch_us, horizon = struct.unpack('<ddddddd', ARGV[1])
if now < 0 then
    local t = redis.call('TIME')
    -- TIME's decimal strings coerced by the arithmetic, as in gcra.lua
    local us = t[1] * 1000000 + t[2] - epoch_us
    if us < 0 then
        us = 0 -- the server's clock stepped back past the epoch
    end
    now = us * 1000
    if now > horizon then
        return redis.error_reply('token bucket: server time past the 2^53 horizon')
    end
end
local capacity = burst * per_token
local tokens, last = capacity, 0
local packed = redis.call('GET', KEYS[1])
if packed then
    if #packed ~= 16 then
        return redis.error_reply('token bucket: the key does not hold a packed bucket')
    end
    tokens, last = struct.unpack('<dd', packed)
end
local avail
if now >= last then
    local refill = (now - last) * per_ns
    if refill >= capacity - tokens then
        avail = capacity
    else
        avail = tokens + refill
    end
else
    local later = (last - now) * per_ns -- a stale read: before that refill
    if tokens > later then
        avail = tokens - later
    else
        avail = 0
    end
end
local cost = n * per_token
if avail < cost then
    return 0
end
if now >= last then
    packed = struct.pack('<dd', avail - cost, now)
else
    packed = struct.pack('<dd', tokens - cost, last) -- still dated `last`
end
redis.call('SET', KEYS[1], packed, 'PX', ARGV[2])
return 1
