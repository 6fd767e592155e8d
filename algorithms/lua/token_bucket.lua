-- token_bucket.lua — redis_token_bucket and redis_token_bucket_servertime:
-- the article's bucket (a hash of a token count and the time it was last
-- brought up to date, the Redis design article §3.4.3) with tb_mutex.c's exact integer
-- arithmetic, so that on the same trace it decides as tb_mutex does.
--
-- Units (tb_ticks.h): with g = gcd(L, I), one ns is L' = L/g ticks and one
-- token I' = I/g ticks; tokens are counted in ticks, capacity B·I'. A
-- missing hash is a bucket full at the epoch (tokens = B·I', last = 0).
-- Forward in time, the refill (now − last)·L' fills up to the capacity;
-- a read older than `last` sees the bucket as it stood then (tokens minus
-- what arrived since), never more. An admit takes n·I'; a refusal writes
-- nothing. Every number stays ≤ 2^53 − 1, where doubles are exact: the
-- caller refuses B·I' beyond it and times past the horizon
-- (2^53 − 1 − B·I')/L' ns, so now·L', (now − last)·L' and the sums all fit.
--
-- Time: ARGV[1] is the client's ns since the epoch, or 'server': the
-- server's TIME in µs minus the server epoch (ARGV[6], TIME when the
-- limiter was created), times 1000; a server time past the horizon is an
-- error reply.
--
-- KEYS[1] the hash   ARGV[1] now   ARGV[2] n   ARGV[3] L'   ARGV[4] I'
-- ARGV[5] B   ARGV[6] server epoch µs   ARGV[7] horizon ns   ARGV[8] PEXPIRE ms
-- Returns 1 (admit) or 0 (reject).
local now
if ARGV[1] == 'server' then
    local t = redis.call('TIME')
    local us = tonumber(t[1]) * 1000000 + tonumber(t[2]) - tonumber(ARGV[6])
    if us < 0 then
        us = 0 -- the server's clock stepped back past the epoch
    end
    now = us * 1000
    if now > tonumber(ARGV[7]) then
        return redis.error_reply('token bucket: server time past the 2^53 horizon')
    end
else
    now = tonumber(ARGV[1])
end
local n = tonumber(ARGV[2])
local per_ns = tonumber(ARGV[3])
local per_token = tonumber(ARGV[4])
local capacity = tonumber(ARGV[5]) * per_token
local state = redis.call('HMGET', KEYS[1], 'tokens', 'last')
local tokens, last = capacity, 0
if state[1] then
    tokens = tonumber(state[1])
    last = tonumber(state[2])
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
    redis.call('HSET', KEYS[1], 'tokens', avail - cost, 'last', now)
else
    redis.call('HSET', KEYS[1], 'tokens', tokens - cost) -- still dated `last`
end
redis.call('PEXPIRE', KEYS[1], ARGV[8])
return 1
