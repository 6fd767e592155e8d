// driver.go — the conformance peer driver for golang.org/x/time/rate
// (tests/conformance/README.md defines the protocol).
//
//	driver --mode real|port-rounded|port-exact --limit L --interval-ns I [--burst B] TRACE.csv
//	driver --mode bench --threads T --duration-ns D --limit L --interval-ns I [--burst B]
//
// Modes:
//
//   - real: one *rate.Limiter per key, made by rate.NewLimiter when the key
//     is first seen, with rate.Limit(L·1e9/I) events per second and burst B;
//     every attempt is AllowN(time.Unix(0, t_ns), n).
//   - port-rounded: our own port of the arithmetic that Limiter.AllowN does
//     (float64 tokens, time.Duration conversions that truncate, and the
//     stale-timestamp flaw of golang/go#71360). It must decide exactly as real.
//   - port-exact: the same port with exact integer arithmetic and a stale
//     timestamp that sees the bucket as it stood at its own time. It must
//     decide exactly as ratelab's tb_mutex.
//   - bench: Allow() on one shared limiter from T goroutines for D ns; prints
//     ns_per_op = elapsed·T/calls.
//
// The starting state, and how we map it. ratelab's buckets are full at the
// epoch (trace t = 0) with last = 0, so a key's bucket is still full at its
// first attempt, whatever that attempt's time, and stays so until an admit.
// rate.NewLimiter starts with tokens = 0 and last = the zero time.Time
// (year 1). Its first AllowN refills from year 1 to t: time.Time.Sub
// saturates at the largest Duration (about 292 years), and 292 years of
// refill, capped at the burst, is a full bucket. So the peer is also "full
// at the key's first attempt", and a denied first attempt (n > B) leaves it
// untouched, exactly as in ratelab. We therefore create the limiter plainly
// with NewLimiter and pass the trace's own times (time.Unix(0, t_ns)):
// nothing is pre-consumed, no Set*At call moves its `last`. We do not use
// rate.Every(I/L), which would round the token period to whole nanoseconds
// first. The one configuration this cannot express is one where 292 years of
// refill is less than B (a rate below B per 292 years): the peer would not
// start full, and the driver exits 3 (skipped). So do times above
// math.MaxInt64 ns (time.Unix takes an int64) and B above the largest int.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"math/bits"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

type config struct {
	limit, intervalNs, burst uint64
	peerLimit                float64 // L·1e9/I events per second, as rate.Limit
}

// A bucket decides one key's attempts in trace order.
type bucket interface {
	allow(t int64, n uint64) bool
}

// ---- real: the peer's own code ----

type realBucket struct{ lim *rate.Limiter }

func (b realBucket) allow(t int64, n uint64) bool {
	return b.lim.AllowN(time.Unix(0, t), int(n))
}

// ---- port-rounded: the peer's float64 arithmetic, step by step ----
//
// State as the peer keeps it: tokens (float64) valid at `last`; `started`
// is false while `last` is still the zero time.Time.
//
//  1. Elapsed time: from the zero time it saturates at math.MaxInt64 ns; a t
//     before last counts as no time at all (last is taken to be t); else
//     t − last in ns.
//  2. Refill: Duration.Seconds() (whole seconds plus remaining ns / 1e9, in
//     float64) times the rate; tokens + refill, capped at float64(B).
//  3. tokens − n; if negative, the wait is Duration(1e9 · (−tokens/rate)),
//     the float64→int64 conversion truncating toward zero, so a wait below
//     one nanosecond is zero.
//  4. Admitted when n ≤ B and the wait is ≤ 0; then tokens (possibly a
//     little below zero) are kept and last becomes t, even when t was before
//     last: that is golang/go#71360. The interval between the stale t and the
//     old last was already refilled, and the next forward attempt refills it
//     again.
//
// A denied attempt changes nothing. Floating-point operations are written
// in the same order as the peer's so that each intermediate rounds the same
// way (Go 1.19 on amd64 does not fuse multiply-add; the peer and the port
// are compiled by the same compiler; other platforms are untested).

type roundedBucket struct {
	cfg     *config
	tokens  float64
	last    int64
	started bool
}

func (b *roundedBucket) allow(t int64, n uint64) bool {
	var elapsed int64
	switch {
	case !b.started:
		elapsed = math.MaxInt64
	case t < b.last:
		elapsed = 0
	default:
		elapsed = t - b.last
	}
	refill := time.Duration(elapsed).Seconds() * b.cfg.peerLimit
	tokens := b.tokens + refill
	if capacity := float64(b.cfg.burst); tokens > capacity {
		tokens = capacity
	}
	tokens -= float64(n)
	var wait time.Duration
	if tokens < 0 {
		seconds := -tokens / b.cfg.peerLimit
		wait = time.Duration(float64(time.Second) * seconds)
	}
	if n > b.cfg.burst || wait > 0 {
		return false
	}
	b.tokens, b.last, b.started = tokens, t, true
	return true
}

// ---- port-exact: the same bucket with nothing rounded ----
//
// Time in ticks of 1/L' ns and tokens in units of 1/I' token, where
// g = gcd(L, I), L' = L/g, I' = I/g: one ns refills L' units, one token is
// I' units, the capacity is B·I'. Products are 128-bit, so nothing rounds
// or overflows. Steps 1–4 above become: refill (t − last)·L' capped at the
// capacity; admitted when n ≤ B and the bucket holds n·I' units (no
// sub-nanosecond grace). A stale t (before last) sees the bucket as it stood
// at t: the units refilled between t and last are taken off (floor 0), and
// an admit there takes n·I' but leaves last where it was, so no interval is
// ever refilled twice. This is ratelab's tb_mutex rule.

type u128 struct{ hi, lo uint64 }

func mul64(a, b uint64) u128 { hi, lo := bits.Mul64(a, b); return u128{hi, lo} }

func (a u128) add(b u128) u128 {
	lo, c := bits.Add64(a.lo, b.lo, 0)
	hi, _ := bits.Add64(a.hi, b.hi, c)
	return u128{hi, lo}
}

func (a u128) sub(b u128) u128 { // a ≥ b
	lo, c := bits.Sub64(a.lo, b.lo, 0)
	hi, _ := bits.Sub64(a.hi, b.hi, c)
	return u128{hi, lo}
}

func (a u128) less(b u128) bool { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo) }

type exactBucket struct {
	units   *exactUnits
	tokens  u128 // in 1/I' token; ≤ capacity
	last    uint64
	started bool // false: full, never used (last is −∞)
}

type exactUnits struct {
	perNs, perToken, burst uint64
	capacity               u128
}

func (b *exactBucket) allow(t int64, n uint64) bool {
	u := b.units
	if n > u.burst {
		return false
	}
	now := uint64(t)
	cost := mul64(n, u.perToken)
	var tokens u128
	forward := !b.started || now >= b.last
	switch {
	case !b.started:
		tokens = u.capacity
	case forward:
		refill := mul64(now-b.last, u.perNs)
		if room := u.capacity.sub(b.tokens); !refill.less(room) {
			tokens = u.capacity
		} else {
			tokens = b.tokens.add(refill)
		}
	default:
		later := mul64(b.last-now, u.perNs)
		if later.less(b.tokens) {
			tokens = b.tokens.sub(later)
		}
	}
	if tokens.less(cost) {
		return false
	}
	if forward {
		b.tokens, b.last, b.started = tokens.sub(cost), now, true
	} else {
		b.tokens = b.tokens.sub(cost)
	}
	return true
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// ---- command line ----

func usage(format string, a ...interface{}) {
	fmt.Fprintf(os.Stderr, "driver: "+format+"\n", a...)
	os.Exit(2)
}

func cannot(format string, a ...interface{}) {
	fmt.Fprintf(os.Stderr, "driver: the peer cannot express this: "+format+"\n", a...)
	os.Exit(3)
}

func fail(format string, a ...interface{}) {
	fmt.Fprintf(os.Stderr, "driver: "+format+"\n", a...)
	os.Exit(1)
}

func parseU64(name, v string) uint64 {
	x, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		usage("%s: '%s' is not an integer 0..%d", name, v, uint64(math.MaxUint64))
	}
	return x
}

func main() {
	opts := map[string]string{}
	var positional []string
	known := map[string]bool{"--mode": true, "--limit": true, "--interval-ns": true,
		"--burst": true, "--threads": true, "--duration-ns": true}
	args := os.Args[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-h" || a == "--help" {
			fmt.Println("usage: driver --mode real|port-rounded|port-exact --limit L --interval-ns I [--burst B] TRACE.csv\n" +
				"       driver --mode bench --threads T --duration-ns D --limit L --interval-ns I [--burst B]")
			return
		}
		if len(a) < 2 || a[:2] != "--" {
			positional = append(positional, a)
			continue
		}
		name, value, hasValue := a, "", false
		if eq := bytes.IndexByte([]byte(a), '='); eq >= 0 {
			name, value, hasValue = a[:eq], a[eq+1:], true
		}
		if !known[name] {
			usage("unknown option '%s'", name)
		}
		if !hasValue {
			if i+1 >= len(args) {
				usage("%s needs a value", name)
			}
			i++
			value = args[i]
		}
		if _, dup := opts[name]; dup {
			usage("%s given twice", name)
		}
		opts[name] = value
	}
	mode := opts["--mode"]
	for _, need := range []string{"--mode", "--limit", "--interval-ns"} {
		if _, ok := opts[need]; !ok {
			usage("%s is required", need)
		}
	}
	var cfg config
	cfg.limit = parseU64("--limit", opts["--limit"])
	cfg.intervalNs = parseU64("--interval-ns", opts["--interval-ns"])
	if cfg.limit == 0 || cfg.intervalNs == 0 {
		usage("--limit and --interval-ns must be at least 1")
	}
	cfg.burst = cfg.limit
	if v, ok := opts["--burst"]; ok {
		cfg.burst = parseU64("--burst", v)
	}
	cfg.peerLimit = float64(cfg.limit) * 1e9 / float64(cfg.intervalNs)
	if cfg.burst > math.MaxInt {
		cannot("burst %d is above the largest int", cfg.burst)
	}
	if time.Duration(math.MaxInt64).Seconds()*cfg.peerLimit < float64(cfg.burst) {
		cannot("at %g events/s a new limiter does not start full (B = %d)", cfg.peerLimit, cfg.burst)
	}

	switch mode {
	case "bench":
		if len(positional) != 0 {
			usage("bench takes no trace")
		}
		for _, need := range []string{"--threads", "--duration-ns"} {
			if _, ok := opts[need]; !ok {
				usage("%s is required with --mode bench", need)
			}
		}
		threads := parseU64("--threads", opts["--threads"])
		duration := parseU64("--duration-ns", opts["--duration-ns"])
		if threads == 0 || threads > 4096 || duration == 0 || duration > math.MaxInt64 {
			usage("--threads must be 1..4096 and --duration-ns at least 1")
		}
		bench(&cfg, int(threads), time.Duration(duration))
		return
	case "real", "port-rounded", "port-exact":
	default:
		usage("--mode must be real, port-rounded, port-exact or bench (got '%s')", mode)
	}
	for _, o := range []string{"--threads", "--duration-ns"} {
		if _, ok := opts[o]; ok {
			usage("%s is only for --mode bench", o)
		}
	}
	if len(positional) != 1 {
		usage("give exactly one TRACE.csv")
	}
	decide(&cfg, mode, positional[0])
}

// decide reads the trace, decides every attempt and writes the decisions.
func decide(cfg *config, mode, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		usage("%v", err)
	}
	g := gcd(cfg.limit, cfg.intervalNs)
	units := &exactUnits{perNs: cfg.limit / g, perToken: cfg.intervalNs / g, burst: cfg.burst}
	units.capacity = mul64(cfg.burst, units.perToken)
	newBucket := func() bucket {
		switch mode {
		case "real":
			return realBucket{rate.NewLimiter(rate.Limit(cfg.peerLimit), int(cfg.burst))}
		case "port-rounded":
			return &roundedBucket{cfg: cfg}
		default:
			return &exactBucket{units: units}
		}
	}

	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	keys := make(map[string]bucket)
	lineNo := 0
	buf := make([]byte, 0, 64)
	for len(data) > 0 {
		lineNo++
		var line []byte
		if nl := bytes.IndexByte(data, '\n'); nl >= 0 {
			line, data = data[:nl], data[nl+1:]
		} else {
			line, data = data, nil
		}
		if len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		if lineNo == 1 {
			if string(line) != "t_ns,key,n" {
				usage("%s:1: the header must be t_ns,key,n", path)
			}
			out.WriteString("t_ns,key,n,admitted\n")
			continue
		}
		c1 := bytes.IndexByte(line, ',')
		c2 := -1
		if c1 >= 0 {
			if j := bytes.IndexByte(line[c1+1:], ','); j >= 0 {
				c2 = c1 + 1 + j
			}
		}
		if c1 < 0 || c2 < 0 || bytes.IndexByte(line[c2+1:], ',') >= 0 {
			usage("%s:%d: expected t_ns,key,n", path, lineNo)
		}
		t, err1 := strconv.ParseUint(string(line[:c1]), 10, 64)
		key := line[c1+1 : c2]
		n, err2 := strconv.ParseUint(string(line[c2+1:]), 10, 32)
		if err1 != nil || err2 != nil || n == 0 || len(key) == 0 {
			usage("%s:%d: expected t_ns (integer), key (text), n (1..%d)", path, lineNo, uint32(math.MaxUint32))
		}
		if t > math.MaxInt64 {
			cannot("%s:%d: time %d ns is beyond what time.Unix takes", path, lineNo, t)
		}
		b, ok := keys[string(key)]
		if !ok {
			b = newBucket()
			keys[string(key)] = b
		}
		admitted := b.allow(int64(t), n)
		buf = buf[:0]
		buf = strconv.AppendUint(buf, t, 10)
		buf = append(buf, ',')
		buf = append(buf, key...)
		buf = append(buf, ',')
		buf = strconv.AppendUint(buf, n, 10)
		if admitted {
			buf = append(buf, ",1\n"...)
		} else {
			buf = append(buf, ",0\n"...)
		}
		out.Write(buf)
	}
	if lineNo == 0 {
		usage("%s: empty (expected the header t_ns,key,n)", path)
	}
	if err := out.Flush(); err != nil {
		fail("writing decisions: %v", err)
	}
}

// bench: T goroutines call Allow() on one shared limiter until D has passed.
func bench(cfg *config, threads int, d time.Duration) {
	if runtime.GOMAXPROCS(0) < threads {
		runtime.GOMAXPROCS(threads)
	}
	lim := rate.NewLimiter(rate.Limit(cfg.peerLimit), int(cfg.burst))
	var stop atomic.Bool
	var total atomic.Uint64
	var ready, done sync.WaitGroup
	startGate := make(chan struct{})
	ready.Add(threads)
	done.Add(threads)
	for i := 0; i < threads; i++ {
		go func() {
			defer done.Done()
			ready.Done()
			<-startGate
			var calls uint64
			for !stop.Load() {
				for j := 0; j < 64; j++ {
					lim.Allow()
				}
				calls += 64
			}
			total.Add(calls)
		}()
	}
	ready.Wait()
	start := time.Now()
	close(startGate)
	time.Sleep(d)
	stop.Store(true)
	done.Wait()
	elapsed := time.Since(start)
	calls := total.Load()
	if calls == 0 {
		fail("bench: no calls completed")
	}
	fmt.Printf("ns_per_op=%.2f\n", float64(elapsed.Nanoseconds())*float64(threads)/float64(calls))
}
