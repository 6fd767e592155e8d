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
-- Lean (docs/redis.md, "What a script call costs"): the client computes
-- L − n and the cutoff now − I, and the numbers handed to redis.call are
-- the client's own decimal text, so a refusal converts one number (it was
-- three tonumbers, and the server printed two Lua numbers back to text).
--
-- KEYS[1] the set               ARGV[1] L − n: the most the set may hold
-- ARGV[2] n                     ARGV[3] now, client ns since the epoch
-- ARGV[4] now − I, or −1 before I has passed (no member is scored below 0)
-- ARGV[5] a member id unique to this call
-- ARGV[6] PEXPIRE ms: the set is dead once its newest member is I old
-- (all below 2^53, where a score is exact, checked by the caller)
-- Returns 1 (admit) or 0 (reject).
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[4])
if redis.call('ZCARD', KEYS[1]) > tonumber(ARGV[1]) then
    return 0
end
for i = 1, tonumber(ARGV[2]) do
    redis.call('ZADD', KEYS[1], ARGV[3], ARGV[5] .. '.' .. i)
end
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return 1
