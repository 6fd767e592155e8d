-- fixed_window.lua — redis_fixed_window: the Redis article's window counter
-- (the Redis rate-limiting design article, "Redis'e Dayalı Akım Sınırlama Sisteminin Tasarımı", §2.2):
-- GET the counter; if adding this attempt would pass the limit, refuse;
-- otherwise INCRBY and EXPIRE, so the counter vanishes a window later.
--
-- Two changes from the article, both deliberate (redis_fixed_window.c):
-- the cost is n (the article checks current + 1 and adds 1), and the expiry
-- is set only when INCRBY opened the window (its reply equals n), so the
-- window ends I after its first admit, as fw_expiry's does; the article
-- sets EXPIRE after every admit, which pushes the end back each time.
--
-- Time: the server's key expiry ends the window (PEXPIRE, whole ms). Under
-- virtual time (sim) the server's clock says nothing about the trace's, so
-- the window's end in trace time is kept in a second key and checked here;
-- both keys then get a long real-time PEXPIRE only to be cleaned up.
--
-- KEYS[1] the counter            KEYS[2] its end in trace ns (virtual only)
-- ARGV[1] L                      ARGV[2] n
-- ARGV[3] PEXPIRE ms: the window (real time) or the keys' life (virtual)
-- ARGV[4] now in ns since the epoch (virtual only, else '')
-- ARGV[5] I in ns (virtual only)
-- Returns 1 (admit) or 0 (reject).
local limit = tonumber(ARGV[1])
local n = tonumber(ARGV[2])
local virtual = ARGV[4] ~= ''
if virtual then
    local ends = tonumber(redis.call('GET', KEYS[2]))
    if ends and tonumber(ARGV[4]) >= ends then
        redis.call('DEL', KEYS[1], KEYS[2]) -- the window expired in trace time
    end
end
local current = tonumber(redis.call('GET', KEYS[1]) or 0)
if current + n > limit then
    return 0
end
if redis.call('INCRBY', KEYS[1], n) == n then -- this admit opened the window
    redis.call('PEXPIRE', KEYS[1], ARGV[3])
    if virtual then
        redis.call('SET', KEYS[2], tonumber(ARGV[4]) + tonumber(ARGV[5]), 'PX', ARGV[3])
    end
end
return 1
