-- sliding_log.lua — redis_sliding_log: the .NET article's sorted set per
-- key (the .NET session-limit article, "Distributed Redis": ZCARD, then ZADD with the time as
-- score and a unique member), with the old members removed here, in the
-- same script, by ZREMRANGEBYSCORE, instead of by the article's separate
-- KEYS scan (that variant is sliding_log_scan.lua).
--
-- Decides as sliding_log.c: admit n when the cost admitted in (now − I, now]
-- plus n is at most L. A member with score e is outside that interval when
-- e ≤ now − I. Each unit of cost is one member, so ZCARD is the cost.
--
-- KEYS[1] the set               ARGV[1] L        ARGV[2] n
-- ARGV[3] now, client ns since the epoch (< 2^53, checked by the caller)
-- ARGV[4] I in ns               ARGV[5] a member id unique to this call
-- ARGV[6] PEXPIRE ms: the set is dead once its newest member is I old
-- Returns 1 (admit) or 0 (reject).
local limit = tonumber(ARGV[1])
local n = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[4]))
if redis.call('ZCARD', KEYS[1]) + n > limit then
    return 0
end
for i = 1, n do
    redis.call('ZADD', KEYS[1], now, ARGV[5] .. '.' .. i)
end
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return 1
