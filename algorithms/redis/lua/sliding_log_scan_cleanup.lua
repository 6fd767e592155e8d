#!lua flags=allow-cross-slot-keys
-- sliding_log_scan_cleanup.lua — the .NET article's LuaForeachRemove as
-- written (the .NET session-limit article): KEYS with the limiter's pattern, then for every key
-- found ZREMRANGEBYSCORE from 0 to the cut-off score, and DEL the key if
-- its set is now empty. KEYS walks the whole keyspace, every key of every
-- user of the server, and the server does nothing else while it runs: this
-- script exists to measure that cost as keys grow.
--
-- On a cluster (redis_common.c) it runs on every primary, where KEYS sees
-- only that node's keys; the keys it then touches are not declared (they
-- cannot be: KEYS finds them) and lie in many slots, all local: the flag
-- on the first line allows that (Redis 7.0 shebang flags; 7.0.15 lets it
-- pass without, a stricter server would not).
--
-- ARGV[1] the pattern, 'rl:<prefix>:*' ('{rl:<prefix>:*' on a cluster)
-- ARGV[2] the cut-off: now − I in client ns (members at or below it are out)
-- Returns how many keys it visited (the article returns 1 when none).
local keys = redis.call('KEYS', ARGV[1])
for i = 1, #keys do
    redis.call('ZREMRANGEBYSCORE', keys[i], 0, ARGV[2])
    if redis.call('ZCARD', keys[i]) == 0 then
        redis.call('DEL', keys[i])
    end
end
return #keys
