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
# part=labels    one line an algorithm for M, numbered from the top:
#                "algo number x y label_x label_y leader", (x, y) its
#                cheapest point, (label_x, label_y) where its number goes,
#                clear of every point and other number; leader 1 when the
#                number is far enough from the point to need a line
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
            p_sl[np] = sliding[k]
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
        # one number an algorithm, at its cheapest point; numbered by
        # max_sliding ÷ L from the top (then cheapest first) in both panels,
        # so an algorithm keeps its number and the legend reads like the top
        n = 0
        for (i = 1; i <= nalgos; i++) {
            cheapest = 0
            for (p = 1; p <= np; p++)
                if (p_algo[p] == algos[i] && (!cheapest || p_ns[p] < p_ns[cheapest])) cheapest = p
            if (cheapest) lab[++n] = cheapest
        }
        for (x = 2; x <= n; x++)
            for (y = x; y > 1 && (p_sl[lab[y - 1]] < p_sl[lab[y]] ||
                                  (p_sl[lab[y - 1]] == p_sl[lab[y]] && p_ns[lab[y - 1]] > p_ns[lab[y]])); y--) {
                t = lab[y]; lab[y] = lab[y - 1]; lab[y - 1] = t
            }
        # Placement in the plot's unit square: x on pareto.gp's log axis
        # (from the label column at cheapest / 3.2 to the costliest
        # whisker × 1.3), y on [low, high], below the floors' names at the
        # top. Every point is an obstacle;
        # each number takes the first free spot in rings around its point,
        # so it sits beside its point and its leader line (drawn only when
        # the number had to move away) is short.
        xmin = xmax = ""
        for (p = 1; p <= np; p++) {
            if (xmin == "" || p_ns[p] < xmin) xmin = p_ns[p]
            if (xmax == "" || p_hi[p] > xmax) xmax = p_hi[p]
        }
        xlo = log(xmin / 3.2 * 0.97); xhi = log(xmax * 1.3)
        for (p = 1; p <= np; p++) {
            ox[p] = (log(p_ns[p]) - xlo) / (xhi - xlo); oy[p] = (p_value[p] - low) / (high - low)
        }
        # a label's half width and half height, a point's half size
        hw = 0.011; hh = 0.024; pw = 0.008; ph = 0.02
        nd = split("1 0 -1 0 0 1 0 -1 1 1 -1 1 1 -1 -1 -1", dir, " ")
        placed = 0
        for (x = 1; x <= n; x++) {
            p = lab[x]; w = hw * (x >= 10 ? 1.5 : 1)
            done = 0
            for (ring = 1; ring <= 8 && !done; ring++)
                for (d = 1; d < nd && !done; d += 2) {
                    cx = ox[p] + dir[d] * ring * (w + pw + 0.002)
                    cy = oy[p] + dir[d + 1] * ring * (hh + ph + 0.002)
                    if (cx - w < 0.16 || cx + w > 1 || cy - hh < 0 || cy + hh > 0.93) continue
                    free = 1
                    # the frontier's text box (pareto.gp: at graph 0.2, 0.36 or
                    # 0.40, left, six or seven lines): no number under it
                    if (cx + w > 0.19 && cx - w < 0.54 && cy + hh > 0.18 && cy - hh < 0.50) free = 0
                    for (q = 1; q <= np && free; q++)
                        if (abs(cx - ox[q]) < w + pw && abs(cy - oy[q]) < hh + ph) free = 0
                    for (q = 1; q <= placed && free; q++)
                        if (abs(cx - lx[q]) < w + lw[q] && abs(cy - lyy[q]) < 2 * hh) free = 0
                    if (free) done = 1
                }
            if (!done) { cx = ox[p] + w + pw; cy = oy[p] }   # nowhere free: beside it anyway
            lx[++placed] = cx; lyy[placed] = cy; lw[placed] = w
            # algo number x y label_x label_y leader (1: draw a line to it)
            print p_algo[p], x, p_ns[p], p_value[p], exp(xlo + cx * (xhi - xlo)), low + cy * (high - low), \
                (abs(cx - ox[p]) > w + pw + 0.003 || abs(cy - oy[p]) > hh + ph + 0.003) ? 1 : 0
        }
    } else if (part == "floors") {
        for (c = 1; c <= nclocks; c++)
            for (f = 1; f <= 2; f++) {
                a = f == 1 ? "faa" : "clock_faa"
                k = a SUBSEP clocks[c]
                if (k in n_ns) print a, clocks[c], median_of(ns[k], n_ns[k])
            }
    }
}
