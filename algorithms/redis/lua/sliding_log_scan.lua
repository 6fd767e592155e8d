-- sliding_log_scan.lua — redis_sliding_log_scan's admit script: the .NET
-- article's LuaAddAccoundSorted as written (the .NET session-limit article): ZCARD the key's
-- sorted set; if it holds the limit, refuse; otherwise ZADD the time with a
-- unique member. It removes nothing: old members stay until the separate
-- cleanup (sliding_log_scan_cleanup.lua) takes them out, so between
-- cleanups they still count and the limiter is stricter than its window.
--
-- Changes: a cost n is n members (the article adds one), and the reply is
-- 1 admit / 0 reject (the article answers 1 for refused and nil for added).
--
-- KEYS[1] the set     ARGV[1] L     ARGV[2] n     ARGV[3] now, client ns
-- ARGV[4] a member id unique to this call
-- ARGV[5] PEXPIRE ms: the set is dead once its newest member is I old
local limit = tonumber(ARGV[1])
local n = tonumber(ARGV[2])
if redis.call('ZCARD', KEYS[1]) + n > limit then
    return 0
end
for i = 1, n do
    redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4] .. '.' .. i)
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
