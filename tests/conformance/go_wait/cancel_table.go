// cancel_table.go — the driver's cancel-table mode: reservations,
// CancelAt and SetLimitAt calls from a table (cancel_table.csv, whose header says the
// format) through the real golang.org/x/time/rate, each outcome checked
// against the row's expectation. The same table runs through ratelab's
// xrate_wait in tests/algorithms/test_shapers_go.c.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"
)

func runCancelTable(path string) int {
	f, err := os.Open(path)
	if err != nil {
		fail(2, "%v", err)
	}
	defer f.Close()
	var lim *realShaper
	held := map[string]*rate.Reservation{}
	rows, bad := 0, 0
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Split(text, ",")
		num := func(i int) int64 {
			if i >= len(f) {
				fail(2, "%s:%d: too few fields", path, line)
			}
			x, err := strconv.ParseInt(f[i], 10, 64)
			if err != nil || x < 0 {
				fail(2, "%s:%d: field %d %q is not a count", path, line, i+1, f[i])
			}
			return x
		}
		switch f[0] {
		case "limiter": // limiter,L,I_ns,B
			cfg := &config{limit: num(1), intervalNs: num(2), burst: num(3)}
			cfg.peerLimit = float64(cfg.limit) * 1e9 / float64(cfg.intervalNs)
			lim = &realShaper{cfg: cfg, lim: rate.NewLimiter(rate.Limit(cfg.peerLimit), int(cfg.burst))}
			held = map[string]*rate.Reservation{}
		case "reserve": // reserve,t_ns,id,n,max_wait_ns or empty,A|R,release_ns
			if lim == nil || len(f) != 7 {
				fail(2, "%s:%d: a reserve row needs a limiter row before it and 7 fields", path, line)
			}
			a := attempt{t: num(1), key: f[2], n: num(3), maxWait: noDeadline}
			if f[4] != "" {
				a.maxWait = num(4)
			}
			ok, release, r := lim.reserve(a)
			got := "R"
			if ok {
				got = "A"
				held[f[2]] = r
			}
			want := f[5]
			if got != want || (ok && release != num(6)) {
				fmt.Fprintf(os.Stderr, "%s:%d: %s: expected %s at %s, x/time gave %s at %d\n",
					path, line, text, want, f[6], got, release)
				bad++
			}
			rows++
		case "cancel": // cancel,t_ns,id
			r, ok := held[f[2]]
			if !ok {
				fail(2, "%s:%d: no reservation %q", path, line, f[2])
			}
			r.CancelAt(time.Unix(0, num(1)))
			rows++
		case "setlimit": // setlimit,t_ns,L,I_ns: SetLimitAt(t, L per I)
			if lim == nil || len(f) != 4 {
				fail(2, "%s:%d: a setlimit row needs a limiter row before it and 4 fields", path, line)
			}
			lim.cfg.limit, lim.cfg.intervalNs = num(2), num(3)
			lim.cfg.peerLimit = float64(lim.cfg.limit) * 1e9 / float64(lim.cfg.intervalNs)
			lim.lim.SetLimitAt(time.Unix(0, num(1)), rate.Limit(lim.cfg.peerLimit))
			rows++
		default:
			fail(2, "%s:%d: unknown row %q", path, line, f[0])
		}
	}
	if err := sc.Err(); err != nil {
		fail(2, "%s: %v", path, err)
	}
	if rows == 0 {
		fail(2, "%s: no rows", path)
	}
	if bad > 0 {
		fmt.Fprintf(os.Stderr, "cancel table: %d of %d rows differ from x/time/rate\n", bad, rows)
		return 1
	}
	fmt.Printf("cancel table: %d rows, x/time/rate meets every one\n", rows)
	return 0
}
