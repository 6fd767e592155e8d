# pareto.awk — a pareto suite's CSV (ratelab bench --suite pareto) shaped for
# pareto.gp: each algorithm on each clock at its cost (median ns_per_op of
# the unrecorded 1-thread stress runs) and its accuracy (max_sliding ÷ L
# and utilization of its replay on that clock).
#
#   awk -F, -v part=P [-v metric=M] -f plots/pareto.awk pareto.csv
#
# part=points    "algo family clock ns ns_min ns_max sliding util", one block
#                an algorithm (blank line between), cheapest clock first, so
#                `with lines` joins an algorithm's clocks
# part=frontier  the points no other beats on both cost and metric M
#                (sliding or util; distance from 1, the exact limiter's
#                value, in steps of 0.01), cheapest first: "ns value algo clock"
# part=labels    one line an algorithm for M: "algo x y label_y", (x, y) its
#                cheapest point, label_y spread so that labels `gap` apart
#                (a fraction of the range, default 0.045) never overlap
# part=floors    "algo clock ns" of faa and clock_faa (a clock read and a
#                fetch-add: the floor of a limiter that reads that clock)
# part=range     "low high" of M over every point, for the y axis
function median_of(list, n,    i, j, t, a) {
    split(list, a, " ")
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
            t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
        }
    lo = a[1]; hi = a[n]
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function abs(v) { return v < 0 ? -v : v }
NR == 1 {
    for (i = 1; i <= NF; i++) col[$i] = i
    if (!gap) gap = 0.045
    next
}
$(col["mode"]) == "stress" && $(col["recorded"]) == "no" && $(col["threads"]) == 1 {
    k = $(col["algo"]) SUBSEP $(col["clock"])
    ns[k] = ns[k] " " $(col["ns_per_op"]); n_ns[k]++
    family[$(col["algo"])] = $(col["family"])
    if (!($(col["clock"]) in clock_seen)) { clock_seen[$(col["clock"])] = 1; clocks[++nclocks] = $(col["clock"]) }
}
$(col["mode"]) == "replay" && $(col["limit"]) > 0 && $(col["utilization"]) != "" {
    a = $(col["algo"])
    k = a SUBSEP $(col["clock"])
    sliding[k] = $(col["max_sliding"]) / $(col["limit"])
    util[k] = $(col["utilization"])
    if (!(a in algo_seen)) { algo_seen[a] = 1; algos[++nalgos] = a }
}
END {
    # every (algorithm, clock) with both a cost and an accuracy
    for (i = 1; i <= nalgos; i++) {
        a = algos[i]
        for (c = 1; c <= nclocks; c++) {
            k = a SUBSEP clocks[c]
            if (!(k in n_ns) || !(k in sliding)) continue
            m = median_of(ns[k], n_ns[k])
            np++
            p_algo[np] = a; p_clock[np] = clocks[c]; p_ns[np] = m; p_lo[np] = lo; p_hi[np] = hi
            p_value[np] = metric == "util" ? util[k] : sliding[k]
            p_line[np] = a " " family[a] " " clocks[c] " " m " " lo " " hi " " sliding[k] " " util[k]
        }
    }
    if (part == "points") {
        for (i = 1; i <= nalgos; i++) {
            n = 0
            for (p = 1; p <= np; p++) if (p_algo[p] == algos[i]) idx[++n] = p
            for (x = 2; x <= n; x++)   # cheapest first
                for (y = x; y > 1 && p_ns[idx[y - 1]] > p_ns[idx[y]]; y--) { t = idx[y]; idx[y] = idx[y - 1]; idx[y - 1] = t }
            for (x = 1; x <= n; x++) print p_line[idx[x]]
            if (n) print ""
        }
    } else if (part == "frontier") {
        for (p = 1; p <= np; p++) order[p] = p
        for (x = 2; x <= np; x++)
            for (y = x; y > 1 && p_ns[order[y - 1]] > p_ns[order[y]]; y--) { t = order[y]; order[y] = order[y - 1]; order[y - 1] = t }
        # cheapest first: keep each closer to 1 than every cheaper one, by
        # at least 0.01 (1% of L: finer steps are the run's noise)
        best = -1
        for (x = 1; x <= np; x++) {
            p = order[x]
            d = int(abs(p_value[p] - 1) * 100 + 0.5) / 100
            if (best < 0 || d < best) {
                best = d
                print p_ns[p], p_value[p], p_algo[p], p_clock[p]
            }
        }
    } else if (part == "labels" || part == "range") {
        low = high = ""
        for (p = 1; p <= np; p++) {
            if (low == "" || p_value[p] < low) low = p_value[p]
            if (high == "" || p_value[p] > high) high = p_value[p]
        }
        if (low > 0) low = 0
        high = high * 1.08
        if (part == "range") { print low, high; exit }
        n = 0
        for (i = 1; i <= nalgos; i++) {
            cheapest = 0
            for (p = 1; p <= np; p++)
                if (p_algo[p] == algos[i] && (!cheapest || p_ns[p] < p_ns[cheapest])) cheapest = p
            if (!cheapest) continue
            lab[++n] = cheapest; ly[n] = p_value[cheapest]
        }
        for (x = 2; x <= n; x++)   # by value
            for (y = x; y > 1 && ly[y - 1] > ly[y]; y--) {
                t = ly[y]; ly[y] = ly[y - 1]; ly[y - 1] = t; t = lab[y]; lab[y] = lab[y - 1]; lab[y - 1] = t
            }
        step = gap * (high - low)
        for (x = 2; x <= n; x++) if (ly[x] < ly[x - 1] + step) ly[x] = ly[x - 1] + step
        if (n && ly[n] > high) ly[n] = high   # pushed past the top: push back down
        for (x = n - 1; x >= 1; x--) if (ly[x] > ly[x + 1] - step) ly[x] = ly[x + 1] - step
        for (x = 1; x <= n; x++) print p_algo[lab[x]], p_ns[lab[x]], p_value[lab[x]], ly[x]
    } else if (part == "floors") {
        for (c = 1; c <= nclocks; c++)
            for (f = 1; f <= 2; f++) {
                a = f == 1 ? "faa" : "clock_faa"
                k = a SUBSEP clocks[c]
                if (k in n_ns) print a, clocks[c], median_of(ns[k], n_ns[k])
            }
    }
}
