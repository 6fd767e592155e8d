-- noop.lua — the redis_noop baseline: a script that only returns, so every
-- Redis figure can be read against what the server can do at all.
return 1
