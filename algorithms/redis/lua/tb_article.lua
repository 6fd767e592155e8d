-- tb_article.lua — redis_tb_article: the Redis article's lazy-refill token
-- bucket as written (the Redis rate-limiting design article, §3.4.3, after Guava's RateLimiter). The
-- bucket is a hash; at each call the tokens owed since last_mill_second
-- are added, then the permits are taken if there are enough:
--
--   reverse_permits = math.floor(((curr_mill_second − last_mill_second)
--                                  / 1000) · rate)
--   local_curr_permits = min(reverse_permits + curr_permits, max_permits)
--   last_mill_second moves to curr_mill_second only when reverse_permits > 0
--
-- Time is the client's, in whole ms; tokens are whole numbers. When at
-- least one token is owed, the floor drops the fraction of a token that
-- had also accrued, and moving last_mill_second forgets it: every refill
-- loses up to one token's worth of time. When less than one is owed,
-- nothing moves and the fraction keeps accruing (until the next refill
-- drops it). A refused call still writes the refilled count back.
--
-- Kept exactly: the double arithmetic above, in that order (Lua numbers);
-- the fresh bucket (no last_mill_second: full, last := now); the write-back
-- on refusal. Changed: max_permits and rate come as arguments, not from a
-- configured hash, and the article's per-application check (return 0 when
-- the bucket is not configured) is gone; redis.call instead of redis.pcall
-- (a failing command is an error, not a value to go on with); replies are
-- 1 admit / 0 reject (the article: 1 / −1); a PEXPIRE so the hash does not
-- linger (it lives until the bucket would be full again, when a missing
-- hash means the same thing: full).
--
-- KEYS[1] the hash   ARGV[1] permits n   ARGV[2] curr_mill_second
-- ARGV[3] max_permits (B)   ARGV[4] rate, permits per second ('%.17g')
-- ARGV[5] PEXPIRE ms
local permits = tonumber(ARGV[1])
local curr_mill_second = tonumber(ARGV[2])
local max_permits = tonumber(ARGV[3])
local rate = tonumber(ARGV[4])
local info = redis.call('HMGET', KEYS[1], 'last_mill_second', 'curr_permits')
local last_mill_second = info[1]
local curr_permits = tonumber(info[2])
local local_curr_permits = max_permits
if last_mill_second then
    local reverse_permits =
        math.floor(((curr_mill_second - tonumber(last_mill_second)) / 1000) * rate)
    local expect_curr_permits = reverse_permits + curr_permits
    local_curr_permits = math.min(expect_curr_permits, max_permits)
    if reverse_permits > 0 then
        redis.call('HSET', KEYS[1], 'last_mill_second', curr_mill_second)
    end
else
    redis.call('HSET', KEYS[1], 'last_mill_second', curr_mill_second)
end
local result = 0
if local_curr_permits - permits >= 0 then
    result = 1
    redis.call('HSET', KEYS[1], 'curr_permits', local_curr_permits - permits)
else
    redis.call('HSET', KEYS[1], 'curr_permits', local_curr_permits)
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return result
