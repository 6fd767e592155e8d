// driver.go — the conformance peer driver for github.com/juju/ratelimit's
// Bucket (Debian's golang-github-juju-ratelimit-dev 1.0.1) as a shaper, on
// a fake Clock. Protocol: tests/conformance/README.md; this peer: README.md
// here.
//
//	driver --mode real|port-rounded|port-exact --limit L --interval-ns I --burst B TRACE.csv
//
// TRACE.csv is `t_ns,key,n[,max_wait_ns]`; an empty or missing max wait is
// Wait(n), a number w is WaitMaxDuration(n, w). It writes
// `t_ns,key,n,admitted,release_ns` (release empty when nothing was taken),
// one line per attempt in trace order.
//
//   - real: one NewBucketWithQuantumAndClock(I/g, B, L/g, clock) per key
//     (g = gcd(L, I)), made when the key is first seen with the fake clock
//     at trace time 0, the epoch its ticks count from. Each attempt sets
//     the clock to t_ns and calls Wait or WaitMaxDuration; the fake clock's
//     Sleep records the duration instead of sleeping, and the release is
//     t + that duration (none: 0).
//   - port-rounded: our own port of 1.0.1's arithmetic, flaws included: a
//     full bucket does not move latestTick (juju/ratelimit #30), and a tick
//     before latestTick is subtracted (time going back).
//   - port-exact: the same with #30 fixed (as PR #31) and a stale tick
//     counted from latestTick: it must decide as ratelab's juju_wait.
//
// Exit 2 on bad usage or input, 3 for what the peer cannot express (t_ns
// above 2^63 − 1, B above 2^63 − 1).
package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/juju/ratelimit"
)

const noMax = -1

type config struct {
	limit, intervalNs, burst int64
	quantum, fill            int64 // L/g tokens every I/g ns
}

type attempt struct {
	t, n, maxWait int64
	key           string
}

type shaper interface {
	take(a attempt) (bool, int64)
}

func fail(code int, format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "driver: "+format+"\n", args...)
	os.Exit(code)
}

// ---- real: the package, on a fake clock ----

type fakeClock struct {
	now   time.Time
	slept time.Duration
}

func (c *fakeClock) Now() time.Time        { return c.now }
func (c *fakeClock) Sleep(d time.Duration) { c.slept += d }

type realShaper struct {
	clock  *fakeClock
	bucket *ratelimit.Bucket
}

func newReal(cfg *config) shaper {
	c := &fakeClock{now: time.Unix(0, 0)}
	return &realShaper{clock: c,
		bucket: ratelimit.NewBucketWithQuantumAndClock(time.Duration(cfg.fill), cfg.burst, cfg.quantum, c)}
}

func (s *realShaper) take(a attempt) (bool, int64) {
	s.clock.now, s.clock.slept = time.Unix(0, a.t), 0
	if a.maxWait == noMax {
		s.bucket.Wait(a.n)
		return true, a.t + int64(s.clock.slept)
	}
	if !s.bucket.WaitMaxDuration(a.n, time.Duration(a.maxWait)) {
		return false, 0
	}
	return true, a.t + int64(s.clock.slept)
}

// ---- the ports: 1.0.1's take and adjust, in our own words ----
//
// tick = ⌊t/fill⌋ (the clock starts at trace time 0). adjust(tick): 1.0.1
// returns at once when the bucket is full (latestTick stays: #30), else
// adds (tick − latestTick)·quantum (negative when the tick went back),
// caps at capacity and sets latestTick = tick. The exact port always
// moves latestTick (PR #31) and ignores a tick before it. take: n ≤ 0
// goes now; available − n ≥ 0 takes at once; else the tokens are there at
// endTick = tick + ⌈missing/quantum⌉ (the exact port: from latestTick),
// the wait is endTick·fill − t, and a wait above the max takes nothing.

type portShaper struct {
	cfg       *config
	exact     bool
	available int64
	latest    int64
}

func (s *portShaper) take(a attempt) (bool, int64) {
	if a.n <= 0 {
		return true, a.t
	}
	tick := a.t / s.cfg.fill
	switch {
	case s.exact && tick > s.latest:
		room := s.cfg.burst - s.available // ≥ 0: never above capacity
		if ticks := tick - s.latest; ticks >= (room+s.cfg.quantum-1)/s.cfg.quantum {
			s.available = s.cfg.burst
		} else {
			s.available += ticks * s.cfg.quantum
		}
		s.latest = tick
	case !s.exact && s.available < s.cfg.burst:
		s.available += (tick - s.latest) * s.cfg.quantum
		if s.available > s.cfg.burst {
			s.available = s.cfg.burst
		}
		s.latest = tick
	}
	left := s.available - a.n
	if left >= 0 {
		s.available = left
		return true, a.t
	}
	from := tick
	if s.exact && s.latest > tick {
		from = s.latest
	}
	end := from + (-left+s.cfg.quantum-1)/s.cfg.quantum
	wait := end*s.cfg.fill - a.t
	if a.maxWait != noMax && wait > a.maxWait {
		return false, 0
	}
	s.available = left
	return true, a.t + wait
}

// ---- input ----

func parseTrace(path string) []attempt {
	f, err := os.Open(path)
	if err != nil {
		fail(2, "%v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var out []attempt
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if line == 1 {
			if text != "t_ns,key,n" && text != "t_ns,key,n,max_wait_ns" {
				fail(2, "%s: header %q, expected t_ns,key,n[,max_wait_ns]", path, text)
			}
			continue
		}
		f := strings.Split(text, ",")
		if len(f) < 3 || len(f) > 4 {
			fail(2, "%s:%d: %d fields", path, line, len(f))
		}
		t, err1 := strconv.ParseUint(f[0], 10, 64)
		n, err2 := strconv.ParseUint(f[2], 10, 63)
		if err1 != nil || err2 != nil {
			fail(2, "%s:%d: bad t_ns or n", path, line)
		}
		if t > math.MaxInt64 {
			fail(3, "%s:%d: t_ns above 2^63 - 1", path, line)
		}
		a := attempt{t: int64(t), key: f[1], n: int64(n), maxWait: noMax}
		if len(f) == 4 && f[3] != "" {
			w, err := strconv.ParseUint(f[3], 10, 63)
			if err != nil {
				fail(2, "%s:%d: bad max_wait_ns %q", path, line, f[3])
			}
			a.maxWait = int64(w)
		}
		out = append(out, a)
	}
	if err := sc.Err(); err != nil {
		fail(2, "%s: %v", path, err)
	}
	return out
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func main() {
	var mode, path string
	var cfg config
	args := os.Args[1:]
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "--mode", "--limit", "--interval-ns", "--burst":
			if i+1 >= len(args) {
				fail(2, "%s needs a value", a)
			}
			v := args[i+1]
			i++
			if a == "--mode" {
				mode = v
				continue
			}
			x, err := strconv.ParseInt(v, 10, 64)
			if err != nil || x < 1 {
				fail(3, "%s %q: not a whole number from 1 to 2^63 - 1", a, v)
			}
			switch a {
			case "--limit":
				cfg.limit = x
			case "--interval-ns":
				cfg.intervalNs = x
			default:
				cfg.burst = x
			}
		default:
			if path != "" {
				fail(2, "usage: driver --mode MODE --limit L --interval-ns I --burst B TRACE.csv")
			}
			path = a
		}
	}
	if path == "" || cfg.limit == 0 || cfg.intervalNs == 0 {
		fail(2, "usage: driver --mode MODE --limit L --interval-ns I --burst B TRACE.csv")
	}
	if cfg.burst == 0 {
		cfg.burst = cfg.limit
	}
	g := gcd(cfg.limit, cfg.intervalNs)
	cfg.quantum, cfg.fill = cfg.limit/g, cfg.intervalNs/g
	var newShaper func() shaper
	switch mode {
	case "real":
		newShaper = func() shaper { return newReal(&cfg) }
	case "port-rounded", "port-exact":
		exact := mode == "port-exact"
		newShaper = func() shaper { return &portShaper{cfg: &cfg, exact: exact, available: cfg.burst} }
	default:
		fail(2, "--mode %q: real, port-rounded or port-exact", mode)
	}
	keys := map[string]shaper{}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	fmt.Fprintln(w, "t_ns,key,n,admitted,release_ns")
	for _, a := range parseTrace(path) {
		s, ok := keys[a.key]
		if !ok {
			s = newShaper()
			keys[a.key] = s
		}
		if admitted, release := s.take(a); admitted {
			fmt.Fprintf(w, "%d,%s,%d,1,%d\n", a.t, a.key, a.n, release)
		} else {
			fmt.Fprintf(w, "%d,%s,%d,0,\n", a.t, a.key, a.n)
		}
	}
}
