# nodes.awk — the frontier's points from a `bench --suite nodes` CSV: for
# the grid's rows with `nodes` = N (-v nodes=N) and an even spread, one line
# per row: strategy, T in ms, store calls per decision, max_sliding / L and
# the derived bound / L (NaN when none), grouped by strategy (a blank line
# between strategies, two between data sets, for gnuplot's index).
BEGIN { FS = "," }
NR == 1 {
    for (i = 1; i <= NF; i++) col[$i] = i
    next
}
$col["experiment"] == "grid" && $col["nodes"] == nodes && $col["spread"] == "even" {
    c = $col["coord"]
    if (!(c in seen)) { seen[c] = 1; order[++n] = c }
    bound = $col["bound_ratio"] == "" ? "NaN" : $col["bound_ratio"]
    rows[c] = rows[c] sprintf("%s %g %s %s %s\n", c, $col["sync_ns"] / 1e6,
                              $col["store_calls_per_decision"], $col["max_sliding_ratio"], bound)
}
END {
    for (i = 1; i <= n; i++) printf "%s\n\n", rows[order[i]]
}
