/*
 * RatelabGuavaDriver — ratelab's conformance driver for Guava's RateLimiter
 * in its SmoothBursty form (tests/conformance/README.md is the protocol,
 * tests/conformance/guava/README.md the mapping).
 *
 * It sits in Guava's own package only to reach two package-private doors:
 * the SleepingStopwatch a limiter reads its time from (so that trace time,
 * not the wall clock, drives the real limiter) and the SmoothBursty
 * constructor that takes maxBurstSeconds (so that one interval's worth of
 * permits is stored, not one second's). Everything that decides in --mode
 * real is Guava's code; the two ports below are this project's own code,
 * written from Guava's documentation and from what its limiter observably
 * computes.
 */
package com.google.common.util.concurrent;

import java.io.IOException;
import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

public final class RatelabGuavaDriver {
    private static final String USAGE =
            "usage: driver --mode real|port-rounded|port-exact --limit L --interval-ns I --burst B"
                    + " [--created-at first-seen|epoch] TRACE.csv"
                    + " | driver --mode bench --threads T --duration-ns D --limit L --interval-ns I"
                    + " --burst B";

    /** Bad usage or a malformed trace: exit 2. */
    private static final class UsageError extends Exception {
        UsageError(String message) {
            super(message);
        }
    }

    /** Something Guava's API cannot take (a cost over Integer.MAX_VALUE): exit 3. */
    private static final class Inexpressible extends Exception {
        Inexpressible(String message) {
            super(message);
        }
    }

    // ---- configuration ------------------------------------------------------------

    private static final class Options {
        String mode;
        long limit = -1, intervalNs = -1, burst = -1, threads = -1, durationNs = -1;
        boolean createdAtEpoch = false;
        String trace;
    }

    private static long positive(String flag, String text) throws UsageError {
        try {
            long v = Long.parseLong(text);
            if (v >= 1)
                return v;
        } catch (NumberFormatException e) {
            // falls through to the complaint
        }
        throw new UsageError(flag + " takes an integer 1.." + Long.MAX_VALUE + ", not '" + text + "'");
    }

    private static Options parse(String[] args) throws UsageError {
        Options o = new Options();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--")) {
                if (o.trace != null)
                    throw new UsageError("one trace only, got '" + o.trace + "' and '" + a + "'");
                o.trace = a;
                continue;
            }
            if (i + 1 >= args.length)
                throw new UsageError(a + " needs a value");
            String v = args[++i];
            switch (a) {
            case "--mode":
                if (!v.equals("real") && !v.equals("port-rounded") && !v.equals("port-exact")
                        && !v.equals("bench"))
                    throw new UsageError("unknown mode '" + v + "'");
                o.mode = v;
                break;
            case "--limit":
                o.limit = positive(a, v);
                break;
            case "--interval-ns":
                o.intervalNs = positive(a, v);
                break;
            case "--burst":
                o.burst = positive(a, v);
                break;
            case "--threads":
                o.threads = positive(a, v);
                break;
            case "--duration-ns":
                o.durationNs = positive(a, v);
                break;
            case "--created-at":
                if (!v.equals("first-seen") && !v.equals("epoch"))
                    throw new UsageError("--created-at takes first-seen or epoch, not '" + v + "'");
                o.createdAtEpoch = v.equals("epoch");
                break;
            default:
                throw new UsageError("unknown option '" + a + "'");
            }
        }
        if (o.mode == null)
            throw new UsageError("--mode is required");
        if (o.limit < 0 || o.intervalNs < 0 || o.burst < 0)
            throw new UsageError("--limit, --interval-ns and --burst are required");
        if (o.mode.equals("bench")) {
            if (o.threads < 0 || o.durationNs < 0)
                throw new UsageError("bench needs --threads and --duration-ns");
            if (o.threads > 4096)
                throw new UsageError("--threads is at most 4096");
            if (o.trace != null)
                throw new UsageError("bench takes no trace");
        } else {
            if (o.trace == null)
                throw new UsageError("a trace file is required");
            if (o.threads >= 0 || o.durationNs >= 0)
                throw new UsageError("--threads and --duration-ns are for --mode bench only");
        }
        return o;
    }

    /**
     * The rate and the burst as Guava takes them: L permits per I ns is L·1e9/I
     * permits a second, and one interval of stored permits is maxBurstSeconds =
     * I/1e9, nudged by whole ulps so that maxBurstSeconds·rate, the cap Guava
     * computes, is L itself when a double allows it and otherwise the nearest
     * value below L ("at most L permits stored").
     */
    static double rateOf(long limit, long intervalNs) {
        return (double) limit * 1e9 / (double) intervalNs;
    }

    static double maxBurstSecondsOf(long limit, long intervalNs) {
        double rate = rateOf(limit, intervalNs), want = (double) limit;
        double s = (double) intervalNs / 1e9;
        for (int step = 0; step < 64 && s * rate != want; step++) {
            double next = s * rate > want ? Math.nextDown(s) : Math.nextUp(s);
            if ((s * rate > want) != (next * rate > want)) { // crossed: keep the side at or below L
                s = next * rate <= want ? next : s;
                break;
            }
            s = next;
        }
        while (s * rate > want)
            s = Math.nextDown(s);
        return s;
    }

    // ---- the trace ------------------------------------------------------------------

    private static final class Trace {
        long[] t; // unsigned 64-bit ns
        int[] key; // dense key ids in order of first appearance
        long[] n;
        int len;
        List<String> keyNames = new ArrayList<>();
    }

    private static boolean digitsOnly(byte[] b, int from, int to) {
        if (from >= to)
            return false;
        for (int i = from; i < to; i++)
            if (b[i] < '0' || b[i] > '9')
                return false;
        return true;
    }

    private static Trace read(String path) throws UsageError, Inexpressible {
        byte[] b;
        try {
            b = Files.readAllBytes(Paths.get(path));
        } catch (IOException | RuntimeException e) {
            throw new UsageError("cannot read trace " + path + " (" + e.getClass().getSimpleName() + ")");
        }
        int end = b.length, p = 0, lineNo = 1;
        int nl = indexOf(b, p, end);
        String header = new String(b, 0, stripCr(b, 0, nl), StandardCharsets.UTF_8);
        if (!header.equals("t_ns,key,n"))
            throw new UsageError(path + ": header is '" + header + "', expected t_ns,key,n");
        p = nl < end ? nl + 1 : end;
        int cap = 1024;
        Trace tr = new Trace();
        tr.t = new long[cap];
        tr.key = new int[cap];
        tr.n = new long[cap];
        Map<String, Integer> ids = new HashMap<>();
        while (p < end) {
            lineNo++;
            nl = indexOf(b, p, end);
            int lineEnd = stripCr(b, p, nl);
            int c1 = -1, c2 = -1, commas = 0;
            for (int i = p; i < lineEnd; i++)
                if (b[i] == ',') {
                    if (commas == 0)
                        c1 = i;
                    else if (commas == 1)
                        c2 = i;
                    commas++;
                }
            if (commas != 2 || !digitsOnly(b, p, c1) || c2 == c1 + 1 || !digitsOnly(b, c2 + 1, lineEnd))
                throw new UsageError(path + ":" + lineNo + ": not t_ns,key,n");
            long t, n;
            try {
                t = Long.parseUnsignedLong(new String(b, p, c1 - p, StandardCharsets.US_ASCII));
                n = Long.parseLong(new String(b, c2 + 1, lineEnd - c2 - 1, StandardCharsets.US_ASCII));
            } catch (NumberFormatException e) {
                throw new UsageError(path + ":" + lineNo + ": number out of range");
            }
            if (n < 1)
                throw new UsageError(path + ":" + lineNo + ": cost must be at least 1");
            if (n > Integer.MAX_VALUE)
                throw new Inexpressible(path + ":" + lineNo + ": cost " + n
                        + " is over Integer.MAX_VALUE, more than Guava's tryAcquire(int) takes");
            String k = new String(b, c1 + 1, c2 - c1 - 1, StandardCharsets.UTF_8);
            Integer id = ids.get(k);
            if (id == null) {
                id = tr.keyNames.size();
                ids.put(k, id);
                tr.keyNames.add(k);
            }
            if (tr.len == cap) {
                cap *= 2;
                tr.t = Arrays.copyOf(tr.t, cap);
                tr.key = Arrays.copyOf(tr.key, cap);
                tr.n = Arrays.copyOf(tr.n, cap);
            }
            tr.t[tr.len] = t;
            tr.key[tr.len] = id;
            tr.n[tr.len] = n;
            tr.len++;
            p = nl < end ? nl + 1 : end;
        }
        return tr;
    }

    private static int indexOf(byte[] b, int from, int end) {
        for (int i = from; i < end; i++)
            if (b[i] == '\n')
                return i;
        return end;
    }

    private static int stripCr(byte[] b, int from, int to) {
        return to > from && b[to - 1] == '\r' ? to - 1 : to;
    }

    /** Trace time as Guava's clock shows it: whole microseconds, truncated. */
    static long micros(long tNs) {
        return Long.divideUnsigned(tNs, 1000L);
    }

    // ---- the deciders -------------------------------------------------------------------

    /** One limiter per key; create is called once, at the key's creation time. */
    private interface Decider {
        void create(int key, long createdNs);

        boolean decide(int key, long tNs, int n);
    }

    /** A clock that shows whatever the trace says it is; nothing ever waits on it. */
    static final class TraceStopwatch extends RateLimiter.SleepingStopwatch {
        long nowMicros;

        @Override
        protected long readMicros() {
            return nowMicros;
        }

        @Override
        protected void sleepMicrosUninterruptibly(long micros) {
            // tryAcquire with no timeout grants only what is free now: it asks to
            // wait 0 µs. Any other wait would be a driver bug.
            if (micros != 0)
                throw new IllegalStateException("Guava asked to sleep " + micros + " µs");
        }
    }

    /** Guava's own SmoothBursty on trace time. */
    private static final class Real implements Decider {
        final TraceStopwatch clock = new TraceStopwatch();
        final double rate, maxBurstSeconds;
        final List<RateLimiter> limiters = new ArrayList<>();

        Real(long limit, long intervalNs) {
            rate = rateOf(limit, intervalNs);
            maxBurstSeconds = maxBurstSecondsOf(limit, intervalNs);
        }

        @Override
        public void create(int key, long createdNs) {
            clock.nowMicros = micros(createdNs);
            RateLimiter r = new SmoothRateLimiter.SmoothBursty(clock, maxBurstSeconds);
            r.setRate(rate); // reads the clock: the limiter is created now
            limiters.add(r);
        }

        @Override
        public boolean decide(int key, long tNs, int n) {
            clock.nowMicros = micros(tNs);
            return limiters.get(key).tryAcquire(n, 0L, TimeUnit.MICROSECONDS);
        }
    }

    /**
     * Our port of SmoothBursty's arithmetic as Guava carries it out: permits in
     * doubles, time in whole microseconds, the interval per permit a double, each
     * new debt cut toward zero to whole microseconds, the debt's end saturating at
     * Long.MAX_VALUE.
     */
    private static final class PortRounded implements Decider {
        final double perPermitMicros, cap;
        double[] stored = new double[16];
        long[] freeAt = new long[16]; // µs: the first moment without debt

        PortRounded(long limit, long intervalNs) {
            double rate = rateOf(limit, intervalNs);
            perPermitMicros = 1e6 / rate;
            cap = maxBurstSecondsOf(limit, intervalNs) * rate;
        }

        @Override
        public void create(int key, long createdNs) {
            if (key == stored.length) {
                stored = Arrays.copyOf(stored, 2 * key);
                freeAt = Arrays.copyOf(freeAt, 2 * key);
            }
            // Born empty, its debt paid at the moment of creation: while the
            // rate is being set the cap is still 0, so the time before creation
            // stores nothing.
            stored[key] = 0.0;
            freeAt[key] = micros(createdNs);
        }

        @Override
        public boolean decide(int key, long tNs, int n) {
            long now = micros(tNs);
            if (freeAt[key] > now)
                return false; // an earlier request's debt is still running
            if (now > freeAt[key]) { // idle since the debt ended: store permits
                double earned = (double) (now - freeAt[key]) / perPermitMicros;
                stored[key] = Math.min(cap, stored[key] + earned);
                freeAt[key] = now;
            }
            double fromStore = Math.min((double) n, stored[key]);
            long debtMicros = (long) (((double) n - fromStore) * perPermitMicros);
            long end = freeAt[key] + debtMicros;
            freeAt[key] = ((freeAt[key] ^ end) & (debtMicros ^ end)) < 0 ? Long.MAX_VALUE : end;
            stored[key] -= fromStore;
            return true;
        }
    }

    /**
     * The same port in exact arithmetic on the trace's nanoseconds: one permit is
     * I' = I/g ticks and one ns is L' = L/g ticks (g = gcd(L, I)), so nothing is
     * ever rounded; at most L·I' ticks of permits are stored.
     */
    private static final class PortExact implements Decider {
        final BigInteger perNs, perPermit, cap;
        final List<BigInteger> stored = new ArrayList<>(), freeAt = new ArrayList<>();

        PortExact(long limit, long intervalNs) {
            BigInteger l = BigInteger.valueOf(limit), i = BigInteger.valueOf(intervalNs);
            BigInteger g = l.gcd(i);
            perNs = l.divide(g);
            perPermit = i.divide(g);
            cap = l.multiply(perPermit);
        }

        private BigInteger ticks(long tNs) {
            return new BigInteger(Long.toUnsignedString(tNs)).multiply(perNs);
        }

        @Override
        public void create(int key, long createdNs) {
            stored.add(BigInteger.ZERO);
            freeAt.add(ticks(createdNs));
        }

        @Override
        public boolean decide(int key, long tNs, int n) {
            BigInteger now = ticks(tNs), free = freeAt.get(key);
            if (now.compareTo(free) < 0)
                return false;
            BigInteger have = stored.get(key).add(now.subtract(free)).min(cap);
            BigInteger cost = perPermit.multiply(BigInteger.valueOf(n));
            BigInteger fromStore = cost.min(have);
            stored.set(key, have.subtract(fromStore));
            freeAt.set(key, now.add(cost.subtract(fromStore)));
            return true;
        }
    }

    // ---- modes ----------------------------------------------------------------------------

    private static void decideTrace(Options o, PrintStream out) throws UsageError, Inexpressible {
        Trace tr = read(o.trace);
        Decider d;
        switch (o.mode) {
        case "real":
            d = new Real(o.limit, o.intervalNs);
            break;
        case "port-rounded":
            d = new PortRounded(o.limit, o.intervalNs);
            break;
        default:
            d = new PortExact(o.limit, o.intervalNs);
            break;
        }
        StringBuilder sb = new StringBuilder(32 * tr.len + 32);
        sb.append("t_ns,key,n,admitted\n");
        int created = 0;
        for (int i = 0; i < tr.len; i++) {
            int k = tr.key[i];
            if (k == created) { // first seen: keys are numbered in order of appearance
                d.create(k, o.createdAtEpoch ? 0L : tr.t[i]);
                created++;
            }
            boolean admitted = d.decide(k, tr.t[i], (int) tr.n[i]);
            sb.append(Long.toUnsignedString(tr.t[i])).append(',').append(tr.keyNames.get(k))
                    .append(',').append(tr.n[i]).append(admitted ? ",1\n" : ",0\n");
        }
        out.print(sb);
        out.flush();
    }

    /**
     * T threads call tryAcquire() on one shared RateLimiter.create(rate) (the
     * system stopwatch; Guava's maxBurstSeconds of 1) as fast as they can: 300 ms
     * of warm-up for the JIT, then D ns measured. Prints ns_per_op =
     * elapsed·T/calls, the time one call takes each thread.
     */
    private static final class Phase {
        volatile long deadline;
    }

    private static void bench(Options o, PrintStream out) throws Exception {
        final RateLimiter shared = RateLimiter.create(rateOf(o.limit, o.intervalNs));
        final int threads = (int) o.threads;
        final long[] calls = new long[threads], admits = new long[threads], endNs = new long[threads];
        final Phase phase = new Phase();
        final CyclicBarrier gate = new CyclicBarrier(threads + 1); // the workers and main
        final Throwable[] failure = new Throwable[1];
        Thread[] workers = new Thread[threads];
        for (int w = 0; w < threads; w++) {
            final int me = w;
            workers[w] = new Thread(() -> {
                try {
                    for (int round = 0; round < 2; round++) { // warm-up, then measured
                        gate.await();
                        long deadline = phase.deadline, c = 0, a = 0, now;
                        do {
                            for (int j = 0; j < 64; j++)
                                if (shared.tryAcquire())
                                    a++;
                            c += 64;
                        } while ((now = System.nanoTime()) < deadline);
                        calls[me] = c;
                        admits[me] = a;
                        endNs[me] = now;
                        gate.await();
                    }
                } catch (Throwable e) {
                    synchronized (failure) {
                        failure[0] = e;
                    }
                    gate.reset();
                }
            });
            workers[w].start();
        }
        phase.deadline = System.nanoTime() + 300_000_000L;
        gate.await();
        gate.await(); // warm-up over
        long start = System.nanoTime();
        phase.deadline = start + o.durationNs;
        gate.await();
        gate.await(); // measured phase over
        for (Thread w : workers)
            w.join();
        synchronized (failure) {
            if (failure[0] != null)
                throw new IllegalStateException("bench thread failed: " + failure[0]);
        }
        long total = 0, last = start;
        for (int w = 0; w < threads; w++) {
            total += calls[w];
            last = Math.max(last, endNs[w]);
        }
        out.printf(Locale.ROOT, "ns_per_op=%.2f%n", (double) (last - start) * threads / total);
        out.flush();
    }

    public static void main(String[] args) {
        PrintStream out = new PrintStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16), false);
        int status = 0;
        try {
            Options o = parse(args);
            if (o.mode.equals("bench"))
                bench(o, out);
            else
                decideTrace(o, out);
        } catch (UsageError e) {
            System.err.println("driver: " + e.getMessage() + " (" + USAGE + ")");
            status = 2;
        } catch (Inexpressible e) {
            System.err.println("driver: " + e.getMessage());
            status = 3;
        } catch (Throwable e) {
            System.err.println("driver: " + e);
            status = 1;
        }
        out.flush();
        if (out.checkError() && status == 0)
            status = 1;
        System.exit(status);
    }
}
