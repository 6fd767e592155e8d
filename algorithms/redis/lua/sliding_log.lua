-- sliding_log.lua — redis_sliding_log: the .NET article's sorted set per
-- key (the .NET session-limit article, "Distributed Redis": ZCARD, then ZADD with the time as
-- score and a unique member), with the old members removed here, in the
-- same script (on an admit), by ZREMRANGEBYSCORE, instead of by the article's separate
-- KEYS scan (that variant is sliding_log_scan.lua).
--
-- Decides as sliding_log.c: admit n when the cost admitted in (now − I, now]
-- plus n is at most L. A member with score e is outside that interval when
-- e ≤ now − I. Each unit of cost is one member, so ZCARD is the cost.
--
-- Lean (docs/redis.md, "What a script call costs"): the client computes
-- L − n and the window's first score, and the numbers handed to redis.call
-- are the client's own decimal text. A refusal is one call: ZCOUNT of the
-- window's members, which is what ZCARD counts after trimming the older
-- ones (it was ZREMRANGEBYSCORE then ZCARD); the trim waits for the next
-- admit, which writes anyway. The set stays bounded: every admit trims it
-- to its window first. What a refusal no longer trims can only count for a
-- later call whose time is earlier than that refusal's (clients out of
-- time order); with times in order every decision is the one trimming at
-- each call gives.
--
-- KEYS[1] the set               ARGV[1] L − n: the most the window may hold
-- ARGV[2] n                     ARGV[3] now, client ns since the epoch
-- ARGV[4] now − I + 1, or 0 before I has passed: the window's oldest score
--         (scores are whole ns, so a member is out when scored below it)
-- ARGV[5] a member id unique to this call
-- ARGV[6] PEXPIRE ms: the set is dead once its newest member is I old
-- (all below 2^53, where a score is exact, checked by the caller)
-- Returns 1 (admit) or 0 (reject).
if redis.call('ZCOUNT', KEYS[1], ARGV[4], '+inf') > tonumber(ARGV[1]) then
    return 0
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[4])
for i = 1, tonumber(ARGV[2]) do
    redis.call('ZADD', KEYS[1], ARGV[3], ARGV[5] .. '.' .. i)
end
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return 1
