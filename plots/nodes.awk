# nodes.awk — the many-nodes figures' points from a `bench --suite nodes`
# CSV (docs/nodes.md), by -v part=:
#   frontier  the grid's rows with `nodes` = N (-v nodes=N) and an even
#             spread, one line a row: strategy, T in ms, store calls per
#             decision, max_sliding / L, the derived bound / L (NaN when
#             none), p99 of the aligned windows / L; one block a strategy
#             (two blank lines between blocks, for gnuplot's index)
#   drl73     DRL's two limiters at demand 7:3: strategy, the loaded node's
#             share of the admits, max_sliding / L
#   step      the demand step's rows: strategy, N, the most admitted / L
#             from the step on, seconds from the step until every window
#             held at most 1.05 L; one block a strategy
BEGIN { FS = "," }
NR == 1 {
    for (i = 1; i <= NF; i++) col[$i] = i
    next
}
function block(key, line) {
    if (!(key in seen)) { seen[key] = 1; order[++n] = key }
    rows[key] = rows[key] line "\n"
}
part == "frontier" && $col["experiment"] == "grid" && $col["nodes"] == nodes && $col["spread"] == "even" {
    bound = $col["bound_ratio"] == "" ? "NaN" : $col["bound_ratio"]
    block($col["coord"], sprintf("%s %g %s %s %s %s", $col["coord"], $col["sync_ns"] / 1e6,
                                 $col["store_calls_per_decision"], $col["max_sliding_ratio"], bound,
                                 $col["window_p99_ratio"]))
}
part == "drl73" && $col["experiment"] == "drl73" {
    print $col["coord"], $col["node0_admit_share"], $col["max_sliding_ratio"]
}
part == "step" && $col["experiment"] == "step" {
    block($col["coord"], sprintf("%s %s %s %g", $col["coord"], $col["nodes"], $col["step_max_ratio"],
                                 $col["converge_ns"] / 1e9))
}
END {
    for (i = 1; i <= n; i++) printf "%s\n\n", rows[order[i]]
}
