# noise.awk — marks the points of a summarize.awk table whose min–max
# overlaps the one they are compared with (within noise), for hollow marks
# in the figures. Input rows end "median min max"; each row is printed with
# one more field, 1 when its interval overlaps its comparison's, 0 when not
# or when it has none:
#
#   awk -v x=N -f plots/noise.awk            the same series (every field but
#       field N and the last three) at the next smaller value of field N
#   awk -v by=N -v ref=NAME -f plots/noise.awk   the row that has NAME in
#       field N and the same other fields (redis_noop, at the same count)
#   awk -v by=N -v strip=REGEX -f plots/noise.awk   the row whose field N is
#       this one's less REGEX (fw_cas for fw_cas_acqrel), when it exists
#   -v ignore=M: field M differs between the two and is not compared (the
#       orders column beside the algorithm)
{
    row[NR] = $0; lo[NR] = $(NF - 1); hi[NR] = $NF
    id = ""
    for (i = 1; i <= NF - 3; i++) if (i != (x ? x : by) && i != ignore) id = id " " $i
    own[NR] = id; pos[NR] = (x ? $x : $by)
    at[id, pos[NR]] = NR
    if (x && !((id, "n") in count)) count[id, "n"] = 0
}
function overlap(a, b) { return !(hi[a] + 0 < lo[b] + 0 || hi[b] + 0 < lo[a] + 0) }
END {
    for (r = 1; r <= NR; r++) {
        other = 0
        if (x) { # the nearest smaller x of the same series
            best = ""
            for (q = 1; q <= NR; q++)
                if (own[q] == own[r] && pos[q] + 0 < pos[r] + 0 && (best == "" || pos[q] + 0 > pos[best] + 0)) best = q
            other = best == "" ? 0 : best
        } else {
            name = pos[r]
            if (ref != "") name = ref
            else sub(strip, "", name)
            other = (name != pos[r] && (own[r], name) in at) ? at[own[r], name] : 0
        }
        print row[r], (other && overlap(r, other)) ? 1 : 0
    }
}
