-- fixed_window.lua — redis_fixed_window: the Redis article's window counter
-- (the Redis rate-limiting design article, "Redis'e Dayalı Akım Sınırlama Sisteminin Tasarımı", §2.2):
-- GET the counter; if adding this attempt would pass the limit, refuse;
-- otherwise add it, and the counter vanishes a window later.
--
-- Three changes from the article, all deliberate (redis_fixed_window.c):
-- the cost is n (the article checks current + 1 and adds 1); the expiry is
-- set only by the admit that opens the window, so the window ends I after
-- its first admit, as fw_expiry's does (the article sets EXPIRE after every
-- admit, which pushes the end back each time); and that admit opens it with
-- one SET n PX (the write and its expiry in one call) where the article
-- sends INCRBY then EXPIRE. Within a window INCRBY adds and keeps the
-- expiry. The key cannot expire between the GET and the INCRBY: the server
-- freezes its clock for key expiry while a script runs.
--
-- Time: the server's key expiry ends the window (PX, whole ms). Under
-- virtual time (sim) the server's clock says nothing about the trace's, so
-- the key holds the count and the window's end in trace time, packed
-- (struct.pack('<dd', count, end)), and the end is checked here; the key
-- then gets a long real-time PX only to be cleaned up.
--
-- KEYS[1] the counter (real time: decimal; virtual: packed, 16 bytes)
-- ARGV[1] L − n: the most the window may already hold for this admit
-- ARGV[2] n
-- ARGV[3] PX ms: the window (real time) or the key's life (virtual)
-- ARGV[4] now in ns since the epoch (virtual only, else absent)
-- ARGV[5] I in ns (virtual only)
-- Returns 1 (admit) or 0 (reject).
if ARGV[4] == nil then
    local count = redis.call('GET', KEYS[1])
    if not count then
        redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) -- this admit opens the window
        return 1
    end
    -- count (INCRBY's or the client's text) and ARGV[1] are decimal
    -- integers without sign or leading zeros, so they compare as text: the
    -- longer is larger, and of equal lengths the one that sorts later (the
    -- digits collate in order in every locale). Two tonumbers cost the
    -- server about a third of an EVALSHA that only returns.
    local most = ARGV[1]
    if #count > #most or (#count == #most and count > most) then
        return 0
    end
    redis.call('INCRBY', KEYS[1], ARGV[2])
    return 1
end
local now = tonumber(ARGV[4])
local count, ends = 0, now + tonumber(ARGV[5])
local packed = redis.call('GET', KEYS[1])
if packed then
    if #packed ~= 16 then
        return redis.error_reply('fixed window: the key does not hold a packed window')
    end
    local held, held_ends = struct.unpack('<dd', packed)
    if now < held_ends then -- else the window expired in trace time
        count, ends = held, held_ends
    end
end
if count > tonumber(ARGV[1]) then
    return 0
end
redis.call('SET', KEYS[1], struct.pack('<dd', count + tonumber(ARGV[2]), ends), 'PX', ARGV[3])
return 1
