// driver.go — the conformance peer driver for golang.org/x/time/rate as a
// shaper: ReserveN / Reservation.DelayFrom, WaitN with a deadline, and
// Reservation.CancelAt, on a fake clock (the *At / From methods, never a
// sleep). Protocol: tests/conformance/README.md; this peer: README.md here.
//
//	driver --mode real|port-rounded|port-exact --limit L --interval-ns I --burst B TRACE.csv
//	driver --mode cancel-table TABLE.csv
//
// TRACE.csv is `t_ns,key,n[,max_wait_ns]`; an empty or missing max wait is
// ReserveN (no deadline), a number is WaitN with a context deadline that
// many ns after t. It writes `t_ns,key,n,admitted,release_ns` (release
// empty for a refusal), one line per attempt in trace order.
//
//   - real: one rate.NewLimiter(rate.Limit(L·1e9/I), B) per key, made when
//     the key is first seen (full at its first use, as ../go/README.md
//     shows). No deadline: r := ReserveN(t, n); admitted = r.OK(), release
//     = t + r.DelayFrom(t). A deadline w: WaitN's steps, which take the time
//     from time.Now() and so cannot run on a fake clock, are taken through
//     the *At methods: n > Burst() is refused; the wait the limiter would
//     need is read with TokensAt(t) (the same advance reserveN does) and
//     converted as the package converts it; a wait above w is refused with
//     nothing reserved (0.3.0's reserveN writes nothing when it is not OK);
//     otherwise ReserveN(t, n) reserves, and its DelayFrom(t) must equal
//     the wait predicted (the driver exits 1 if it does not).
//   - port-rounded: our own port of the package's float64 arithmetic
//     (truncated waits, stale times moving `last` back: golang/go #71360).
//   - port-exact: exact integers, stale times seen as of their own time: it
//     must decide as ratelab's xrate_wait.
//   - cancel-table: runs TABLE.csv (reserve and cancel steps with their
//     expected outcomes) through the real package and exits 1 on the first
//     row it does not meet; tests/algorithms/test_shapers_go.c runs the same
//     table through xrate_wait. Traces carry no cancellations yet, so this
//     is CancelAt's conformance.
//
// Exit 2 on bad usage or input, 3 for what the peer cannot express (t_ns
// above 2^63 − 1, B above the largest int).
package main

import (
	"bufio"
	"fmt"
	"math"
	"math/big"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"
)

const noDeadline = -1

type config struct {
	limit, intervalNs, burst int64
	peerLimit                float64
}

type attempt struct {
	t       int64
	key     string
	n       int64
	maxWait int64 // noDeadline, or ns
}

// A shaper decides one key's attempts in trace order: admitted and the
// release time in ns.
type shaper interface {
	take(a attempt) (bool, int64)
}

func fail(code int, format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "driver: "+format+"\n", args...)
	os.Exit(code)
}

// ---- real: the package itself ----

type realShaper struct {
	cfg *config
	lim *rate.Limiter
}

// peerWait converts a token deficit to a wait as the package's
// durationFromTokens does: seconds = tokens/limit, then Duration(1e9·s),
// truncated toward zero.
func peerWait(deficit float64, limit float64) time.Duration {
	seconds := deficit / limit
	return time.Duration(float64(time.Second) * seconds)
}

func (s *realShaper) take(a attempt) (bool, int64) {
	ok, release, _ := s.reserve(a)
	return ok, release
}

// reserve also returns the reservation, for CancelAt (cancel-table).
func (s *realShaper) reserve(a attempt) (bool, int64, *rate.Reservation) {
	t := time.Unix(0, a.t)
	if a.maxWait == noDeadline {
		r := s.lim.ReserveN(t, int(a.n))
		if !r.OK() {
			return false, 0, nil
		}
		return true, a.t + int64(r.DelayFrom(t)), r
	}
	if a.n > int64(s.lim.Burst()) {
		return false, 0, nil // WaitN: "exceeds limiter's burst"
	}
	left := s.lim.TokensAt(t) - float64(a.n)
	var predicted time.Duration
	if left < 0 {
		predicted = peerWait(-left, float64(s.lim.Limit()))
	}
	if predicted > time.Duration(a.maxWait) {
		return false, 0, nil // WaitN: "would exceed context deadline"
	}
	r := s.lim.ReserveN(t, int(a.n))
	if !r.OK() {
		fail(1, "real: ReserveN refused t=%d n=%d that TokensAt allowed", a.t, a.n)
	}
	d := r.DelayFrom(t)
	if d != predicted {
		fail(1, "real: DelayFrom %d ns, predicted %d ns (t=%d n=%d)", d, predicted, a.t, a.n)
	}
	return true, a.t + int64(d), r
}

// ---- port-rounded: the package's float64 arithmetic, step by step ----
//
// tokens (float64) valid at last; before the first use last is the zero
// time, whose distance saturates at the largest Duration (a full bucket).
// advance: a t before last counts as no time (last taken to be t); the
// refill is Duration.Seconds()·limit, capped at B. A reservation takes n,
// waits Duration(1e9·(−tokens/limit)) when tokens < 0 (truncated), and is
// OK when n ≤ B and the wait ≤ the max; only then tokens, last = t (even
// when t was before last: #71360) and lastEvent are written.

type roundedShaper struct {
	cfg     *config
	tokens  float64
	last    int64
	started bool
}

func (s *roundedShaper) take(a attempt) (bool, int64) {
	var elapsed int64
	switch {
	case !s.started:
		elapsed = math.MaxInt64
	case a.t < s.last:
		elapsed = 0
	default:
		elapsed = a.t - s.last
	}
	tokens := s.tokens + time.Duration(elapsed).Seconds()*s.cfg.peerLimit
	if capacity := float64(s.cfg.burst); tokens > capacity {
		tokens = capacity
	}
	tokens -= float64(a.n)
	var wait time.Duration
	if tokens < 0 {
		wait = peerWait(-tokens, s.cfg.peerLimit)
	}
	maxWait := time.Duration(math.MaxInt64)
	if a.maxWait != noDeadline {
		maxWait = time.Duration(a.maxWait)
	}
	if a.n > s.cfg.burst || wait > maxWait {
		return false, 0
	}
	s.tokens, s.last, s.started = tokens, a.t, true
	return true, a.t + int64(wait)
}

// ---- port-exact: ratelab's xrate_wait in big integers ----
//
// Time in ticks of 1/L' ns (L' = L/g, I' = I/g, g = gcd(L, I)); a token is
// I' ticks. tat: when the bucket is full again; a reservation at t is
// tat' = max(t, tat) + n·I', timeToAct = max(t, tat' − B·I'), its wait
// rounded up to a ns; refused (nothing written) when n > B or the wait is
// above the max.

type exactShaper struct {
	perNs, perToken, capacity *big.Int
	burst                     int64
	tat                       *big.Int
}

func newExact(cfg *config) *exactShaper {
	g := new(big.Int).GCD(nil, nil, big.NewInt(cfg.limit), big.NewInt(cfg.intervalNs))
	perNs := new(big.Int).Quo(big.NewInt(cfg.limit), g)
	perToken := new(big.Int).Quo(big.NewInt(cfg.intervalNs), g)
	return &exactShaper{perNs: perNs, perToken: perToken,
		capacity: new(big.Int).Mul(big.NewInt(cfg.burst), perToken), burst: cfg.burst,
		tat: new(big.Int)}
}

func maxBig(a, b *big.Int) *big.Int {
	if a.Cmp(b) >= 0 {
		return a
	}
	return b
}

func (s *exactShaper) take(a attempt) (bool, int64) {
	if a.n > s.burst {
		return false, 0
	}
	now := new(big.Int).Mul(big.NewInt(a.t), s.perNs)
	next := new(big.Int).Add(maxBig(s.tat, now), new(big.Int).Mul(big.NewInt(a.n), s.perToken))
	act := maxBig(now, new(big.Int).Sub(next, s.capacity))
	waitTicks := new(big.Int).Sub(act, now)
	waitNs, rem := new(big.Int).QuoRem(waitTicks, s.perNs, new(big.Int))
	if rem.Sign() != 0 {
		waitNs.Add(waitNs, big.NewInt(1))
	}
	if a.maxWait != noDeadline && waitNs.Cmp(big.NewInt(a.maxWait)) > 0 {
		return false, 0
	}
	if !waitNs.IsInt64() || waitNs.Int64() > math.MaxInt64-a.t {
		fail(3, "port-exact: a wait past 2^63 ns")
	}
	s.tat = next
	return true, a.t + waitNs.Int64()
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
	line := 0
	for sc.Scan() {
		line++
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
			fail(3, "%s:%d: t_ns above 2^63 - 1 (time.Unix takes an int64)", path, line)
		}
		a := attempt{t: int64(t), key: f[1], n: int64(n), maxWait: noDeadline}
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
				fail(2, "%s %q: a whole number of at least 1", a, v)
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
	if path == "" {
		fail(2, "usage: driver --mode MODE --limit L --interval-ns I --burst B TRACE.csv")
	}
	if mode == "cancel-table" {
		os.Exit(runCancelTable(path))
	}
	if cfg.limit == 0 || cfg.intervalNs == 0 {
		fail(2, "--limit and --interval-ns are required")
	}
	if cfg.burst == 0 {
		cfg.burst = cfg.limit
	}
	if cfg.burst > math.MaxInt {
		fail(3, "B above the largest int")
	}
	cfg.peerLimit = float64(cfg.limit) * 1e9 / float64(cfg.intervalNs)
	var newShaper func() shaper
	switch mode {
	case "real":
		newShaper = func() shaper {
			return &realShaper{cfg: &cfg, lim: rate.NewLimiter(rate.Limit(cfg.peerLimit), int(cfg.burst))}
		}
	case "port-rounded":
		newShaper = func() shaper { return &roundedShaper{cfg: &cfg} }
	case "port-exact":
		newShaper = func() shaper { return newExact(&cfg) }
	default:
		fail(2, "--mode %q: real, port-rounded, port-exact or cancel-table", mode)
	}
	attempts := parseTrace(path)
	keys := map[string]shaper{}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	fmt.Fprintln(w, "t_ns,key,n,admitted,release_ns")
	for _, a := range attempts {
		s, ok := keys[a.key]
		if !ok {
			s = newShaper()
			keys[a.key] = s
		}
		admitted, release := s.take(a)
		if admitted {
			fmt.Fprintf(w, "%d,%s,%d,1,%d\n", a.t, a.key, a.n, release)
		} else {
			fmt.Fprintf(w, "%d,%s,%d,0,\n", a.t, a.key, a.n)
		}
	}
}
