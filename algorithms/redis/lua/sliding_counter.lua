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
-- The key holds w (the current window's k), curr and prev, packed
-- (struct.pack('<ddd', w, curr, prev), 24 bytes); a missing key is window 0
-- with nothing counted. A later window rotates the counts (prev := curr if
-- it is the next one, else 0), and the rotation is written even when the
-- attempt is refused, as sliding_counter.c keeps it; an earlier window (a
-- stale read) is decided as the current one at elapsed 0.
--
-- Lean on purpose (docs/redis.md, "What a script call costs"), as the
-- bucket scripts: the numbers cross as packed doubles (exact below 2^53,
-- which the caller keeps every product under), not as decimal text that
-- needs a tonumber each; the state is one string, so a refusal is one GET
-- and a write one SET with PX (it was HMGET, then HSET and PEXPIRE).
--
-- KEYS[1] the pair   ARGV[1] five little-endian doubles,
--         struct.pack('<ddddd', k, elapsed ns, n, L, I ns)
-- ARGV[2] PX ms, in decimal: how long the pair matters
-- Returns 1 (admit) or 0 (reject); anything else at the key is an error
-- reply, never a decision.
local window, elapsed, n, limit, interval = struct.unpack('<ddddd', ARGV[1])
local w, curr, prev = 0, 0, 0
local packed = redis.call('GET', KEYS[1])
if packed then
    if #packed ~= 24 then
        return redis.error_reply('sliding counter: the key does not hold a packed window pair')
    end
    w, curr, prev = struct.unpack('<ddd', packed)
end
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
    redis.call('SET', KEYS[1], struct.pack('<ddd', w, curr, prev), 'PX', ARGV[2])
end
if admit then
    return 1
end
return 0
