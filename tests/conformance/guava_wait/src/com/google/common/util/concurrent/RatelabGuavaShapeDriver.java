/*
 * RatelabGuavaShapeDriver — ratelab's conformance driver for Guava's
 * RateLimiter as a shaper: SmoothBursty (guava_bursty) and SmoothWarmingUp
 * (guava_warmup), acquire(n) and tryAcquire(n, timeout), decision by
 * decision and release by release (tests/conformance/README.md is the
 * protocol, tests/conformance/guava_wait/README.md the mapping).
 *
 * It sits in Guava's package, as ../guava's driver does, to reach the
 * package-private doors: the SleepingStopwatch (trace time drives the real
 * limiter; a sleep is recorded, never slept), the SmoothBursty constructor
 * with maxBurstSeconds, RateLimiter.create with a coldFactor and a
 * stopwatch, and reserve(n), which answers acquire's wait in whole µs.
 * Everything that decides in --mode real is Guava's code; the two ports are
 * this project's own, written from Guava's documented rule.
 */
package com.google.common.util.concurrent;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

public final class RatelabGuavaShapeDriver {
    private static final String USAGE = "usage: driver --mode real|port-rounded|port-exact --limit L"
            + " --interval-ns I --burst B [--algo guava_bursty|guava_warmup] TRACE.csv"
            + " (the algorithm defaults to $CONFORMANCE_ALGO)";

    /** Bad usage or a malformed trace: exit 2. */
    private static final class UsageError extends Exception {
        UsageError(String message) {
            super(message);
        }
    }

    /** Something Guava cannot take: exit 3. */
    private static final class Inexpressible extends Exception {
        Inexpressible(String message) {
            super(message);
        }
    }

    static final long NONE = -1; // no max wait: acquire

    /** One attempt's answer: admitted, and how long the caller waits (ns). */
    private interface Shaper {
        boolean decide(int key, long tNs, int n, long maxWaitNs, long[] waitNs);
    }

    // ---- Guava's own code ------------------------------------------------------------

    /** Shows the trace's time in whole µs; records a sleep instead of sleeping. */
    static final class TraceStopwatch extends RateLimiter.SleepingStopwatch {
        long nowMicros, slept;

        @Override
        protected long readMicros() {
            return nowMicros;
        }

        @Override
        protected void sleepMicrosUninterruptibly(long micros) {
            slept = micros;
        }
    }

    private static final class Real implements Shaper {
        final TraceStopwatch clock = new TraceStopwatch();
        final List<RateLimiter> limiters = new ArrayList<>();
        final boolean warmup;
        final double rate, maxBurstSeconds;
        final long warmupMicros;

        Real(boolean warmup, long limit, long intervalNs, long burst) throws Inexpressible {
            this.warmup = warmup;
            rate = RatelabGuavaDriver.rateOf(limit, intervalNs);
            maxBurstSeconds = RatelabGuavaDriver.maxBurstSecondsOf(limit, intervalNs);
            warmupMicros = warmupMicrosOf(limit, intervalNs, burst);
        }

        RateLimiter create() {
            clock.nowMicros = 0; // every key's limiter is created at the epoch, as ratelab's
            if (warmup)
                return RateLimiter.create(rate, warmupMicros, TimeUnit.MICROSECONDS, 3.0, clock);
            RateLimiter r = new SmoothRateLimiter.SmoothBursty(clock, maxBurstSeconds);
            r.setRate(rate);
            return r;
        }

        @Override
        public boolean decide(int key, long tNs, int n, long maxWaitNs, long[] waitNs) {
            while (limiters.size() <= key)
                limiters.add(create());
            RateLimiter r = limiters.get(key);
            clock.nowMicros = RatelabGuavaDriver.micros(tNs);
            long micros;
            if (maxWaitNs == NONE) {
                micros = r.reserve(n); // acquire(n) without its sleep
            } else {
                clock.slept = 0;
                if (!r.tryAcquire(n, maxWaitNs, TimeUnit.NANOSECONDS))
                    return false;
                micros = clock.slept;
            }
            waitNs[0] = micros * 1000;
            return true;
        }
    }

    /** warmupPeriod = B·I/L (maxPermits = B), in the whole µs Guava keeps. */
    static long warmupMicrosOf(long limit, long intervalNs, long burst) throws Inexpressible {
        BigInteger w = BigInteger.valueOf(burst).multiply(BigInteger.valueOf(intervalNs))
                .divide(BigInteger.valueOf(limit).multiply(BigInteger.valueOf(1000)));
        if (w.signum() == 0 || w.bitLength() > 62)
            throw new Inexpressible("a warm-up of B·I/L = " + w + " µs: Guava needs 1..2^62 (#2730)");
        return w.longValue();
    }

    // ---- our port of Guava's arithmetic ------------------------------------------------

    /** SmoothRateLimiter's rule as Guava computes it: doubles, whole µs, casts toward zero. */
    private static final class PortRounded implements Shaper {
        final boolean warmup;
        final double stable, maxPermits, threshold, slope, coolDown;
        final long warmupMicros;
        final List<double[]> stored = new ArrayList<>();
        final List<long[]> nextFree = new ArrayList<>();

        PortRounded(boolean warmup, long limit, long intervalNs, long burst) throws Inexpressible {
            this.warmup = warmup;
            double rate = RatelabGuavaDriver.rateOf(limit, intervalNs);
            stable = 1e6 / rate;
            if (warmup) {
                warmupMicros = warmupMicrosOf(limit, intervalNs, burst);
                double cold = stable * 3.0;
                threshold = 0.5 * warmupMicros / stable;
                maxPermits = threshold + 2.0 * warmupMicros / (stable + cold);
                slope = (cold - stable) / (maxPermits - threshold);
                coolDown = warmupMicros / maxPermits;
            } else {
                warmupMicros = 0;
                maxPermits = RatelabGuavaDriver.maxBurstSecondsOf(limit, intervalNs) * rate;
                threshold = slope = 0;
                coolDown = stable;
            }
        }

        double permitsToTime(double permits) {
            return stable + permits * slope;
        }

        long storedToWait(double have, double take) {
            if (!warmup)
                return 0;
            double above = have - threshold;
            long micros = 0;
            if (above > 0.0) {
                double k = Math.min(above, take);
                double length = permitsToTime(above) + permitsToTime(above - k);
                micros = (long) (k * length / 2.0);
                take -= k;
            }
            micros += (long) (stable * take);
            return micros;
        }

        @Override
        public boolean decide(int key, long tNs, int n, long maxWaitNs, long[] waitNs) {
            while (stored.size() <= key) { // created at µs 0: cold (warm-up) or empty
                stored.add(new double[] {warmup ? maxPermits : 0.0});
                nextFree.add(new long[] {0});
            }
            double[] s = stored.get(key);
            long[] f = nextFree.get(key);
            long now = RatelabGuavaDriver.micros(tNs);
            if (maxWaitNs != NONE && f[0] - maxWaitNs / 1000 > now)
                return false; // canAcquire
            if (now > f[0]) { // resync
                s[0] = Math.min(maxPermits, s[0] + (now - f[0]) / coolDown);
                f[0] = now;
            }
            long moment = f[0];
            double spend = Math.min(n, s[0]);
            long wait = storedToWait(s[0], spend) + (long) ((n - spend) * stable);
            long end = f[0] + wait;
            f[0] = ((f[0] ^ end) & (wait ^ end)) < 0 ? Long.MAX_VALUE : end;
            s[0] -= spend;
            waitNs[0] = Math.max(moment - now, 0) * 1000;
            return true;
        }
    }

    /**
     * The same rule exact, as ratelab's guava_bursty and guava_warmup decide:
     * time in half ticks (one ns = 2L' ticks, one permit = 2I' ticks, g =
     * gcd(L, I)), the warm part of a charge rounded up to a half tick, a wait
     * rounded up to a whole ns.
     */
    private static final class PortExact implements Shaper {
        final boolean warmup;
        final BigInteger pn, pt, maxStored, threshold, burst;
        final List<BigInteger[]> state = new ArrayList<>(); // {stored, nextFree}

        PortExact(boolean warmup, long limit, long intervalNs, long b) {
            this.warmup = warmup;
            BigInteger l = BigInteger.valueOf(limit), i = BigInteger.valueOf(intervalNs);
            BigInteger g = l.gcd(i), two = BigInteger.valueOf(2);
            pn = l.divide(g).multiply(two);
            pt = i.divide(g).multiply(two);
            burst = BigInteger.valueOf(warmup ? b : limit);
            maxStored = burst.multiply(pt);
            threshold = maxStored.divide(two); // B·I' ticks: whole
        }

        @Override
        public boolean decide(int key, long tNs, int n, long maxWaitNs, long[] waitNs) {
            while (state.size() <= key)
                state.add(new BigInteger[] {warmup ? maxStored : BigInteger.ZERO, BigInteger.ZERO});
            BigInteger[] s = state.get(key);
            BigInteger now = new BigInteger(Long.toUnsignedString(tNs)).multiply(pn);
            BigInteger waitTicks = s[1].subtract(now).max(BigInteger.ZERO);
            BigInteger[] qr = waitTicks.divideAndRemainder(pn);
            BigInteger wait = qr[0].add(qr[1].signum() != 0 ? BigInteger.ONE : BigInteger.ZERO);
            if (maxWaitNs != NONE && wait.compareTo(BigInteger.valueOf(maxWaitNs)) > 0)
                return false;
            if (now.compareTo(s[1]) > 0) {
                s[0] = s[0].add(now.subtract(s[1])).min(maxStored);
                s[1] = now;
            }
            BigInteger cost = pt.multiply(BigInteger.valueOf(n));
            BigInteger spent = cost.min(s[0]);
            // SmoothBursty's stored permits are free; SmoothWarmingUp's cost T
            // each, plus the trapezoid's part above the stable line.
            BigInteger charge = warmup ? cost : cost.subtract(spent);
            if (warmup && s[0].compareTo(threshold) > 0) {
                BigInteger above = s[0].subtract(threshold), k = spent.min(above);
                BigInteger num = BigInteger.valueOf(2).multiply(k)
                        .multiply(above.shiftLeft(1).subtract(k));
                BigInteger[] d = num.divideAndRemainder(burst.multiply(pt));
                charge = charge.add(d[0]).add(d[1].signum() != 0 ? BigInteger.ONE : BigInteger.ZERO);
            }
            s[0] = s[0].subtract(spent);
            s[1] = s[1].add(charge);
            waitNs[0] = wait.longValueExact();
            return true;
        }
    }

    // ---- the trace ----------------------------------------------------------------------

    public static void main(String[] args) {
        PrintStream out = new PrintStream(
                new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16), false);
        int status = 0;
        try {
            run(args, out);
        } catch (UsageError e) {
            System.err.println("driver: " + e.getMessage() + " (" + USAGE + ")");
            status = 2;
        } catch (Inexpressible e) {
            System.err.println("driver: skipped: " + e.getMessage());
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

    private static long positive(String flag, String v) throws UsageError {
        try {
            long x = Long.parseLong(v);
            if (x >= 1)
                return x;
        } catch (NumberFormatException e) {
            // the complaint below
        }
        throw new UsageError(flag + " takes an integer 1.." + Long.MAX_VALUE + ", not '" + v + "'");
    }

    private static void run(String[] args, PrintStream out) throws Exception {
        String mode = null, trace = null, algo = System.getenv("CONFORMANCE_ALGO");
        long limit = -1, interval = -1, burst = -1;
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--")) {
                if (trace != null)
                    throw new UsageError("one trace only");
                trace = args[i];
                continue;
            }
            if (i + 1 >= args.length)
                throw new UsageError(args[i] + " needs a value");
            String a = args[i], v = args[++i];
            switch (a) {
            case "--mode":
                if (!v.equals("real") && !v.equals("port-rounded") && !v.equals("port-exact"))
                    throw new UsageError("unknown mode '" + v + "'");
                mode = v;
                break;
            case "--limit":
                limit = positive(a, v);
                break;
            case "--interval-ns":
                interval = positive(a, v);
                break;
            case "--burst":
                burst = positive(a, v);
                break;
            case "--algo":
                algo = v;
                break;
            default:
                throw new UsageError("unknown option '" + a + "'");
            }
        }
        if (mode == null || trace == null || limit < 0 || interval < 0 || burst < 0)
            throw new UsageError("--mode, --limit, --interval-ns, --burst and a trace are required");
        if (algo == null || !(algo.equals("guava_bursty") || algo.equals("guava_warmup")))
            throw new UsageError("the algorithm is guava_bursty or guava_warmup, not '" + algo + "'");
        boolean warmup = algo.equals("guava_warmup");
        Shaper sh = mode.equals("real") ? new Real(warmup, limit, interval, burst)
                : mode.equals("port-rounded") ? new PortRounded(warmup, limit, interval, burst)
                : new PortExact(warmup, limit, interval, burst);

        List<String> lines;
        try {
            lines = Files.readAllLines(Paths.get(trace), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            throw new UsageError("cannot read trace " + trace);
        }
        if (lines.isEmpty())
            throw new UsageError(trace + ": empty");
        String header = lines.get(0);
        boolean waits = header.equals("t_ns,key,n,max_wait_ns");
        if (!waits && !header.equals("t_ns,key,n"))
            throw new UsageError(trace + ": header '" + header + "', expected t_ns,key,n[,max_wait_ns]");
        StringBuilder sb = new StringBuilder(48 * lines.size());
        sb.append("t_ns,key,n,admitted,release_ns\n");
        Map<String, Integer> ids = new HashMap<>();
        long[] wait = new long[1];
        for (int ln = 1; ln < lines.size(); ln++) {
            String[] f = lines.get(ln).split(",", -1);
            if (f.length != (waits ? 4 : 3) || f[1].isEmpty())
                throw new UsageError(trace + ":" + (ln + 1) + ": not " + header);
            long t, n, maxWait = NONE;
            try {
                t = Long.parseUnsignedLong(f[0]);
                n = Long.parseLong(f[2]);
                if (waits && !f[3].isEmpty())
                    maxWait = Long.parseLong(f[3]);
            } catch (NumberFormatException e) {
                throw new UsageError(trace + ":" + (ln + 1) + ": a number out of range");
            }
            if (n < 1 || (waits && !f[3].isEmpty() && maxWait < 0))
                throw new UsageError(trace + ":" + (ln + 1) + ": cost under 1 or a negative wait");
            if (n > Integer.MAX_VALUE)
                throw new Inexpressible("cost " + n + " is more than acquire(int) takes");
            Integer id = ids.get(f[1]);
            if (id == null) {
                id = ids.size();
                ids.put(f[1], id);
            }
            boolean admitted = sh.decide(id, t, (int) n, maxWait, wait);
            sb.append(f[0]).append(',').append(f[1]).append(',').append(n);
            sb.append(admitted ? ",1," : ",0,");
            if (admitted)
                sb.append(Long.toUnsignedString(t + wait[0]));
            sb.append('\n');
        }
        out.print(sb);
    }
}
