-- sliding_counter.lua — redis_sliding_counter: Cloudflare's two-window
-- estimate (as sliding_counter.c, which it must match): the previous
-- window's count weighted by how much the sliding window still overlaps it,
--
--   admit n  ⇔  prev·(I − elapsed) + (curr + n)·I ≤ L·I,
--
-- windows [epoch + k·I, epoch + (k+1)·I). The caller computes k and elapsed
-- from the client's time in exact integers (a double division could land
-- on the wrong side of a window edge) and keeps 2·L·I ≤ 2^53 − 1; curr + n
-- > L is refused first, so every product here stays below that.
--
-- The hash holds w (the current window's k), curr and prev; a missing one
-- is window 0 with nothing counted. A later window rotates the counts
-- (prev := curr if it is the next one, else 0), and the rotation is written
-- even when the attempt is refused, as sliding_counter.c keeps it; an
-- earlier window (a stale read) is decided as the current one at elapsed 0.
--
-- KEYS[1] the hash   ARGV[1] k   ARGV[2] elapsed ns   ARGV[3] n   ARGV[4] L
-- ARGV[5] I ns   ARGV[6] PEXPIRE ms
-- Returns 1 (admit) or 0 (reject).
local window = tonumber(ARGV[1])
local elapsed = tonumber(ARGV[2])
local n = tonumber(ARGV[3])
local limit = tonumber(ARGV[4])
local interval = tonumber(ARGV[5])
local state = redis.call('HMGET', KEYS[1], 'w', 'curr', 'prev')
local w = tonumber(state[1]) or 0
local curr = tonumber(state[2]) or 0
local prev = tonumber(state[3]) or 0
local rotated = false
if window > w then
    if window == w + 1 then
        prev = curr
    else
        prev = 0
    end
    curr = 0
    w = window
    rotated = true
elseif window < w then
    elapsed = 0
end
local admit = curr + n <= limit and
    prev * (interval - elapsed) + (curr + n) * interval <= limit * interval
if admit then
    curr = curr + n
end
if admit or rotated then
    redis.call('HSET', KEYS[1], 'w', w, 'curr', curr, 'prev', prev)
    redis.call('PEXPIRE', KEYS[1], ARGV[6])
end
if admit then
    return 1
end
return 0
