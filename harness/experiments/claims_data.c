/* claims_data.c — the published claims, as data: for each, who said it
 * (title, author or organisation, year, URL), the claim in a sentence, the
 * runs that test it, the command line that repeats them and its runner
 * (claims_runners.h), in the order `ratelab claims` shows them.
 *
 * Sources are cited, not copied: each claim is a paraphrase. Where a
 * source's title, author, year or URL could not be found, the entry says so
 * (docs/references.md). */
#include "claims.h"
#include "claims_runners.h"

#include <stddef.h>

#define CPP_TITLE "C++ 实现线程安全的频率限制器 (A thread-safe frequency limiter in C++)"
#define CPP_ORG   "author not found (republished copies name none)"
#define CPP_URL   "URL not found (original); republished copy: http://cdysf.com/article/ddjiic.html"
#define NET_TITLE                                                                                                         \
    ".Net 如何模拟会话级别的信号量，对http接口调用频率进行限制(有demo) (How does .Net simulate " \
    "session-level semaphores, limit the http interface call frequency (with demo))"
#define NET_ORG                "1996V (cnblogs)"
#define NET_URL                "http://www.cnblogs.com/1996V/p/8127576.html"
#define CONFORMANCE_ROWS(peer) "awk -F, 'NR==1 || $1==\"" peer "\"' results/conformance.csv"

const struct rl_claim rl_claims[] = {
    {.id = "cpp_naive_double_admit",
     .source_title = CPP_TITLE,
     .source_org = CPP_ORG,
     .year = "not found",
     .url = CPP_URL,
     .claim = "Its first threaded step (atomic count and timestamp, the window reset by a plain "
              "load and store) is unsafe: two threads that both find the window expired both "
              "reset it, so a window admits twice and a late reset puts the count back to 1.",
     .experiment = "stress",
     .command = "build/ratelab stress --algo fw_atomic_naive,fw_cas --threads 2 --record --limit "
                "50 --interval 10ms --duration 300ms --reps 1",
     .deterministic = false,
     .run = rl_claim_cpp_naive},
    {.id = "cpp_cas_weak",
     .source_title = CPP_TITLE,
     .source_org = CPP_ORG,
     .year = "not found",
     .url = CPP_URL,
     .claim = "With a compare-and-swap on the timestamp and the first-window fix, the limiter "
              "meets the weak statement: at most L in each window of a row of contiguous fixed "
              "windows of length I.",
     .experiment = "sim",
     .command = "build/ratelab sim --algo fw_cas,fw_aligned --workload flash --limit 10 "
                "--interval 1s --rate 5 --duration 6s --at 3500ms --spike 1s --factor 10",
     .deterministic = true,
     .run = rl_claim_cpp_cas_weak},
    {.id = "cpp_acqrel_faster",
     .source_title = CPP_TITLE,
     .source_org = CPP_ORG,
     .year = "not found",
     .url = CPP_URL,
     .claim = "Relaxing the count's atomic operations from seq_cst to acq_rel (release on the "
              "reset) makes the limiter faster.",
     .experiment = "stress",
     .command = "build/ratelab stress --algo fw_cas,fw_cas_acqrel --threads 1,2 --limit "
                "4000000000 --interval 10s --duration 100ms --reps 3",
     .deterministic = false,
     .run = rl_claim_cpp_acqrel},
    {.id = "dotnet_expiry_14",
     .source_title = NET_TITLE,
     .source_org = NET_ORG,
     .year = "not found",
     .url = NET_URL,
     .claim = "A counter cached to expire 1 s after it was created lets 14 requests through "
              "within one second at a limit of 10 (3 + 7 before the expiry, 7 + 3 after it).",
     .experiment = "sim",
     .command = "build/ratelab sim --algo fw_expiry --workload boundary --size 7 --limit 10 "
                "--interval 1s",
     .deterministic = true,
     .run = rl_claim_dotnet_expiry},
    {.id = "dotnet_sweeper",
     .source_title = NET_TITLE,
     .source_org = NET_ORG,
     .year = "not found",
     .url = NET_URL,
     .claim = "Its stand-alone version, a per-user list of request times cleaned by a background "
              "sweeper, limits each user to the configured number of requests per second.",
     .experiment = "sim",
     .command = "for r in 40000 10000 5000; do build/ratelab sim --algo sliding_log_sweeper "
                "--workload poisson --duration 20s --rate $r; done",
     .deterministic = true,
     .run = rl_claim_dotnet_sweeper},
    {.id = "wheel_slots",
     .source_title = "title not found (a Chinese article on limiting the packets a user sends in "
                     "a period with a time wheel, CRateLimitMgr::RotateWheel)",
     .source_org = "not found",
     .year = "not found",
     .url = "URL not found",
     .claim = "A time wheel of S slots limits what each user sends per period accurately and "
              "cheaply.",
     .experiment = "sim, stress",
     .command = "for s in 2 10 100; do build/ratelab sim --algo wheel --workload flash --slots "
                "$s; build/ratelab sim --algo wheel --workload poisson --slots $s; "
                "build/ratelab stress --algo clock_faa,wheel --threads 1 --slots $s --duration "
                "100ms --reps 1; done",
     .deterministic = false,
     .run = rl_claim_wheel},
    {.id = "redis_article_qps",
     .source_title = "Redis'e Dayalı Akım Sınırlama Sisteminin Tasarımı (Design of a Redis-based "
                     "rate limiting system; a Turkish machine translation, original not found)",
     .source_org = "not found",
     .year = "not found",
     .url = "URL not found",
     .claim = "Its Lua token bucket serves 250, 2000 and 5000 QPS at 1, 10 and 100 client "
              "threads against a 2-core managed Redis.",
     .experiment = "stress",
     .command = "build/ratelab stress --algo redis_tb_article,redis_noop --threads 1,10,100 "
                "--duration 150ms --reps 3",
     .deterministic = false,
     .needs_redis = true,
     .run = rl_claim_redis_qps},
    {.id = "cloudflare_error_rate",
     .source_title = "How we built rate limiting capable of scaling to millions of domains",
     .source_org = "Julien Desgats, Cloudflare",
     .year = "2017",
     .url = "https://blog.cloudflare.com/counting-things-a-lot-of-different-things/",
     .claim = "The sliding-window estimate from two fixed-window counters decided wrongly on "
              "0.003% of requests (over 400 million requests, as the project quotes the post).",
     .experiment = "sim",
     .command = "build/ratelab sim --algo sliding_counter --workload poisson --limit 100 "
                "--interval 1s --duration 60s --keys 1000 --rate 110000 --format csv",
     .deterministic = true,
     .run = rl_claim_cloudflare},
    {.id = "go_stale_timestamp",
     .source_title = "x/time/rate: Rate limit can be exceeded 5000x under high lock contention "
                     "due to bug in `advance`",
     .source_org = "golang/go issue 71360 (reported by Ingovd)",
     .year = "2025",
     .url = "https://github.com/golang/go/issues/71360",
     .claim = "A call whose timestamp is older than the limiter's last update moves that update "
              "back, so the same time is refilled twice and x/time/rate exceeds its rate (by far, "
              "under lock contention).",
     .experiment = "conformance, sim",
     .command = CONFORMANCE_ROWS("go") "; printf "
                                       "'t_ns,key,n\\n0,k,1\\n1000000000,k,1\\n0,k,1\\n1000000000,"
                                       "k,1\\n1000000000,k,1\\n' > /tmp/go71360.csv; "
                                       "build/conformance/go/bin/driver --mode real --limit 1 "
                                       "--interval-ns 1000000000 --burst 2 /tmp/go71360.csv; "
                                       "build/ratelab sim --algo tb_mutex --trace "
                                       "/tmp/go71360.csv --unsorted --limit 1 --interval 1s "
                                       "--burst 2",
     .deterministic = true,
     .run = rl_claim_go_stale},
    {.id = "nginx_ms_cap",
     .source_title = "Module ngx_http_limit_req_module (and its ngx_http_limit_req_module.c)",
     .source_org = "nginx",
     .year = "not checked (the module exists since nginx 0.7.21)",
     .url = "https://nginx.org/en/docs/http/ngx_http_limit_req_module.html",
     .claim = "limit_req holds each key to the configured rate; read from its millisecond "
              "arithmetic (ratelab's reading, not nginx's words), a rate far above 1000 r/s "
              "without burst= is capped near one request per millisecond.",
     .experiment = "sim, conformance",
     .command = "build/ratelab sim --algo leaky_nginx,sliding_log --workload uniform --limit "
                "10000 --interval 1s; " CONFORMANCE_ROWS("nginx"),
     .deterministic = true,
     .run = rl_claim_nginx},
    {.id = "resilience4j_2x",
     .source_title = "Rate limiter let's pending requests pass too soon",
     .source_org = "resilience4j issue 1356 (tapioko; answered by storozhukBM)",
     .year = "2021",
     .url = "https://github.com/resilience4j/resilience4j/issues/1356",
     .claim = "AtomicRateLimiter cuts time into cycles fixed from its creation, so calls at the "
              "end of one cycle and the start of the next can pass up to twice limitForPeriod "
              "within one limitRefreshPeriod.",
     .experiment = "sim",
     .command = "build/ratelab sim --algo fw_aligned --workload boundary",
     .deterministic = true,
     .run = rl_claim_resilience4j},
    {.id = "relaxed_cas_bucket",
     .source_title = "token bucket: new atomic token bucket implementation (AtomicTokenBucketImpl, "
                     "after folly's TokenBucket); also CppCommon's TokenBucket",
     .source_org = "Envoy, envoyproxy/envoy pull request 34789 (wbpcode); chronoxor, CppCommon",
     .year = "2024 (Envoy); CppCommon not checked",
     .url = "https://github.com/envoyproxy/envoy/pull/34789",
     .claim =
         "A token bucket kept as one time word updated by compare-and-swap needs only "
         "relaxed atomic operations (Envoy's and CppCommon's load and CAS it relaxed; folly's, "
         "which Envoy follows, keeps seq_cst).",
     .experiment = "stress",
     .command = "build/ratelab stress --algo tb_cas,tb_cas_relaxed --threads 2 --record "
                "--duration 300ms --reps 1",
     .deterministic = false,
     .run = rl_claim_relaxed},
    {.id = "varnish_truncation",
     .source_title = "vsthrottle.is_denied is triggering with less requests per second than "
                     "configured. (fixed by pull request 243, \"vsthrottle: don't lose fractional "
                     "refill on every admission\")",
     .source_org = "varnish-modules issue 237 (Varnish Software)",
     .year = "2026",
     .url = "https://github.com/varnish/varnish-modules/issues/237",
     .claim = "vsthrottle denies requests below its configured rate, because its refill is cut to "
              "whole tokens and restarted at every admission: about 10% denied at 4000 rps "
              "against 5000 per second.",
     .experiment = "sim",
     .command = "build/ratelab sim --algo tb_mutex,redis_tb_article --workload uniform --limit "
                "1500 --interval 1s --burst 10 --rate 1200 --duration 4s; build/ratelab sim "
                "--algo tb_mutex,redis_tb_article --workload poisson --limit 30 --interval 1s "
                "--burst 5 --rate 24 --duration 60s",
     .deterministic = true,
     .needs_redis = true,
     .run = rl_claim_varnish},
    {.id = "linux_trylock",
     .source_title = "ratelimit: Reduce ___ratelimit() false-positive rate limiting",
     .source_org = "Petr Mladek, in Paul E. McKenney's ratelimit series (LKML, v5 patch 8/21)",
     .year = "2025",
     .url = "https://lore.kernel.org/all/20250508233335.1996059-8-paulmck@kernel.org/",
     .claim = "___ratelimit() takes a contended lock as a reason to suppress the caller, so under "
              "contention callers are refused although the burst has room (false positives).",
     .experiment = "stress",
     .command = "build/ratelab stress --algo fw_trylock --threads 1,2 --limit 4000000000 "
                "--interval 10s --duration 200ms --reps 1",
     .deterministic = false,
     .run = rl_claim_linux},
    {.id = "wrk2_omission",
     .source_title = "wrk2: a constant throughput, correct latency recording variant of wrk",
     .source_org = "Gil Tene",
     .year = "not checked",
     .url = "https://github.com/giltene/wrk2",
     .claim = "A load generator that waits for each response before sending the next omits the "
              "time requests spend waiting (coordinated omission), so it understates latency; "
              "latency must be counted from when each request should have been sent.",
     .experiment = "replay",
     .command = "build/ratelab replay --algo redis_gcra --threads 2 --workload uniform --rate "
                "100000 --duration 300ms",
     .deterministic = false,
     .needs_redis = true,
     .run = rl_claim_wrk2},
    {.id = "guava_idle_burst",
     .source_title = "RateLimiter, create(double permitsPerSecond) (API documentation)",
     .source_org = "Google, Guava",
     .year = "2012 (since Guava 13.0)",
     .url = "https://guava.dev/releases/snapshot-jre/api/docs/com/google/common/util/concurrent/"
            "RateLimiter.html",
     .claim = "On average no more than permitsPerSecond permits are issued in any second; after "
              "an idle spell a burst of up to permitsPerSecond is allowed, then the stable rate.",
     .experiment = "sim, conformance",
     .command = "build/ratelab sim --algo tb_debt --workload onoff --limit 10 --interval 1s "
                "--rate 100 --on 1s --off 2s --duration 9s; " CONFORMANCE_ROWS("guava"),
     .deterministic = true,
     .run = rl_claim_guava},
    {.id = "uber_idle_no_limit",
     .source_title = "uber-go/ratelimit issue 119 and pull request 120, \"Fix immediate slack "
                     "re-apply issue\"; issue 106 (the same symptom)",
     .source_org = "Uber, uber-go/ratelimit (issue reporters and maintainers)",
     .year = "2023",
     .url = "https://github.com/uber-go/ratelimit/pull/120",
     .claim = "In the atomic int64 limiter, once a caller has been idle longer than the slack, "
              "every later Take goes at once: the limiter stops limiting.",
     .experiment = "sim",
     .command = "build/ratelab sim --algo pacer_uber_idle_bug --workload onoff --limit 100 "
                "--interval 1s --burst 11 --rate 200 --on 1s --off 2s --duration 9s --decisions "
                "/tmp/u.csv && build/ratelab check --events /tmp/u.csv --promise shape --limit 100 "
                "--interval 1s --burst 11",
     .deterministic = true,
     .run = rl_claim_uber_idle},
    {.id = "uber_noslack_no_block",
     .source_title = "atomicInt64Limiter WithoutSlack doesn't block (uber-go/ratelimit issue 90); "
                     "pull request 95, \"Fix no slack option for int64 based option\"",
     .source_org = "Uber, uber-go/ratelimit (issue reporter and maintainers)",
     .year = "2022",
     .url = "https://github.com/uber-go/ratelimit/issues/90",
     .claim = "In the atomic int64 limiter of PR 85, with WithoutSlack every later Take finds "
              "now past the next permission by more than maxSlack = 0 and goes at once: Take "
              "does not wait (New(100, WithoutSlack) gave waits of microseconds, not 10 ms).",
     .experiment = "sim",
     .command = "build/ratelab claims uber_noslack_no_block (shape calls on a virtual clock; "
                "tests/algorithms/test_uber_expectations.c has the decision table)",
     .deterministic = true,
     .run = rl_claim_uber_noslack},
    {.id = "uber_slack_no_effect",
     .source_title = "The \"slack\" option doesn't make effect when use newAtomicInt64Based "
                     "version rate limit (uber-go/ratelimit issue 122)",
     .source_org = "nemohan (issue reporter), uber-go/ratelimit",
     .year = "2023",
     .url = "https://github.com/uber-go/ratelimit/issues/122",
     .claim = "With New(1, WithSlack(2)), one Take, 4 s of sleep and then a loop of Takes, "
              "every Take after the sleep returns at once: the slack option has no effect.",
     .experiment = "sim",
     .command = "build/ratelab claims uber_slack_no_effect (shape calls on a virtual clock; "
                "tests/algorithms/test_shapers.c has the same case)",
     .deterministic = true,
     .run = rl_claim_uber_slack},
    {.id = "uber_slack_unobservable",
     .source_title = "Investigate table runner for the impact of slack (uber-go/ratelimit issue 4)",
     .source_org = "kriskowal, uber-go/ratelimit",
     .year = "2016",
     .url = "https://github.com/uber-go/ratelimit/issues/4",
     .claim = "The difference between the limiter with and without slack cannot be observed "
              "by the tests; a test that makes it observable is wanted.",
     .experiment = "sim",
     .command = "build/ratelab trace --workload idle_burst --limit 100 --interval 1s --out "
                "/tmp/i.csv && for b in 1 11 21; do build/ratelab sim --algo pacer_uber --trace "
                "/tmp/i.csv --limit 100 --interval 1s --burst $b --decisions /tmp/i$b.csv; done",
     .deterministic = true,
     .run = rl_claim_uber_slack_observable},
    {.id = "go_cancelat_restore",
     .source_title = "x/time/rate: CancelAt returns less than expected tokens (golang/go issue "
                     "56924); x/time/rate: wrong number of tokens restored in "
                     "Reservation.CancelAt (golang/go issue 69419)",
     .source_org = "golang/go (issue reporters)",
     .year = "2022, 2024",
     .url = "https://github.com/golang/go/issues/69419",
     .claim = "Reservation.CancelAt restores fewer tokens than the cancelled reservation took "
              "when reservations were made after it.",
     .experiment = "sim",
     .command = "printf 't_ns,key,n,max_wait_ns,cancel_ns\\n0,k,1,,\\n0,k,1,,10000000\\n0,k,1,,"
                "10000000\\n20000000,k,1,,\\n' > /tmp/c.csv && build/ratelab sim --algo xrate_wait "
                "--trace /tmp/c.csv --limit 10 --interval 1s --burst 1 --decisions /tmp/cd.csv && "
                "build/ratelab check --events /tmp/cd.csv --promise shape --limit 10 --interval 1s "
                "--burst 1",
     .deterministic = true,
     .run = rl_claim_go_cancelat},
    {.id = "go_setlimit_pending",
     .source_title = "golang.org/x/time/rate, Limiter.SetLimitAt (package documentation, "
                     "0.3.0 as Debian packages it)",
     .source_org = "The Go Authors",
     .year = "2015 (rate.go's copyright line; the sentence's own year not found)",
     .url = "https://pkg.go.dev/golang.org/x/time/rate#Limiter.SetLimitAt",
     .claim = "x/time SetLimitAt: pending reservations may violate the new limit (\"may be "
              "violated or underutilized by those which reserved ... but did not yet act\").",
     .experiment = "sim",
     .command = "printf 't_ns,key,n\\n0,k,1\\n0,k,1\\n0,k,1\\n50000000,k,1\\n' > /tmp/s.csv && "
                "build/ratelab sim --algo xrate_wait --trace /tmp/s.csv --limit 10 --interval 1s "
                "--burst 1 --set-rate 50ms:1 --decisions /tmp/sd.csv && build/ratelab check "
                "--events /tmp/sd.csv --promise shape --limit 10 --interval 1s --burst 1 "
                "--set-rate 50ms:1",
     .deterministic = true,
     .run = rl_claim_go_setlimit_pending},
    {.id = "go_failed_reserve_state",
     .source_title = "x/time/rate: reservation's delay is longer than expected if the previous "
                     "one is not ok (golang/go issue 52584; golang/time pull request 22, \"rate: "
                     "the state of the limiter should not be changed when the requests failed\")",
     .source_org = "cncal (issue reporter), golang/go",
     .year = "2022",
     .url = "https://github.com/golang/go/issues/52584",
     .claim = "A reservation that fails (its wait past the deadline, or n above the burst) "
              "still changes the limiter's state, delaying the callers after it.",
     .experiment = "sim",
     .command = "build/ratelab claims go_failed_reserve_state (shape calls on a virtual clock "
                "through xrate_wait)",
     .deterministic = true,
     .run = rl_claim_go_failed_reserve},
    {.id = "guava_no_more_than_n",
     .source_title = "How to avoid Rate Limiter to store unused permit? (google/guava issue 5372)",
     .source_org = "William1104 (issue reporter), google/guava",
     .year = "2020",
     .url = "https://github.com/google/guava/issues/5372",
     .claim = "RateLimiter.create(N) with acquire() should give absolutely no more than N "
              "calls in any period of one second.",
     .experiment = "sim",
     .command = "build/ratelab sim --algo guava_bursty --workload onoff --limit 10 --interval 1s "
                "--rate 20 --on 1s --off 2s --duration 9s --decisions /tmp/g.csv && awk -F, "
                "'NR==1{print \"t_ns,key,n,admitted\";next} $4==1{print $6\",\"$2\",\"$3\",1\"}' "
                "/tmp/g.csv > /tmp/gr.csv && build/ratelab check --events /tmp/gr.csv --limit 10 "
                "--interval 1s --promise strong",
     .deterministic = true,
     .run = rl_claim_guava_no_more_than},
    {.id = "guava_warmup_never_warm",
     .source_title =
         "SmoothWarmingUp may not reach max rate in some case? (google/guava issue 3552)",
     .source_org = "google/guava (issue reporter)",
     .year = "2019",
     .url = "https://github.com/google/guava/issues/3552",
     .claim = "RateLimiter.create(10, 500 ms) polled with tryAcquire() every 120 ms never reaches "
              "its rate of 10 permits a second.",
     .experiment = "sim, conformance",
     .command = "build/ratelab sim --algo guava_warmup --workload warm_poll --limit 10 --interval "
                "1s --burst 5 --duration 30s --rate 8.333333; " CONFORMANCE_ROWS("guava_wait"),
     .deterministic = true,
     .run = rl_claim_guava_warmup_cold},
    {.id = "drl_disconnected_n",
     .source_title = "Cloud Control with Distributed Rate Limiting",
     .source_org = "Raghavan, Vishwanath, Ramabhadran, Yocum, Snoeren (UC San Diego), SIGCOMM",
     .year = "2007",
     .url = "http://docplayer.net/299171-Cloud-control-with-distributed-rate-limiting.html",
     .claim = "Limiters that each enforce the global limit without talking to each other could "
              "admit up to N times the limit.",
     .experiment = "sim",
     .command = "for n in 2 10 100; do build/ratelab sim --nodes $n --coord local --limit 100 "
                "--interval 1s --workload poisson --duration 10s --rate $((200 * n)); done",
     .deterministic = true,
     .run = rl_claim_drl_disconnected},
    {.id = "databricks_5pct",
     .source_title = "High Performance Ratelimiting at Databricks",
     .source_org = "D. Hoa, J. Wang, S. Soti, V. Peng, G. Nanda (Databricks engineering blog)",
     .year = "2025",
     .url = "https://www.databricks.com/blog/high-performance-ratelimiting-databricks",
     .claim = "Clients that decide locally and report to the service about every 100 ms keep "
              "the overshoot to about 5%.",
     .experiment = "sim",
     .command = "for d in 1020 1100 2000 10000; do build/ratelab sim --nodes 10 --coord report "
                "--sync 100ms --rtt 1ms --limit 1000 --interval 1s --workload poisson "
                "--duration 10s --rate $d; done",
     .deterministic = true,
     .run = rl_claim_databricks_overshoot},
    {.id = "gubernator_global",
     .source_title = "gubernator: GLOBAL behavior (documentation)",
     .source_org = "gubernator-io (formerly Mailgun)",
     .year = "not checked",
     .url = "https://github.com/gubernator-io/gubernator",
     .claim = "GLOBAL answers from any peer's cache and sends hits to the key's owner "
              "asynchronously, choosing performance over accuracy; no bound on the "
              "over-admission is given.",
     .experiment = "sim",
     .command = "for n in 2 10 100 1000; do build/ratelab sim --nodes $n --coord report "
                "--sync 100ms --rtt 1ms --limit 1000 --interval 1s --workload poisson "
                "--duration 10s --rate 2000; done",
     .deterministic = true,
     .run = rl_claim_gubernator_global},
    {.id = "doorman_lease_death",
     .source_title = "Doorman: How It Works (documentation)",
     .source_org = "YouTube (Google)",
     .year = "not found",
     .url = "https://github.com/youtube/doorman/blob/master/doc/how_it_works.md",
     .claim = "Capacity is granted as leases (typically five minutes, refreshed every five "
              "seconds) and a client is guaranteed its capacity for the lease's length: what a "
              "client that stops refreshing holds is not given to others until its lease "
              "expires.",
     .experiment = "sim",
     .command = "for t in 5.3s 5.4s 5.5s; do build/ratelab sim --nodes 4 --coord lease:k=250 "
                "--limit 1000 --interval 1s --workload poisson --duration 10s --rate 2000 "
                "--node-dies 0@$t; done",
     .deterministic = true,
     .run = rl_claim_doorman_lease_death},
    {.id = "github_replica_read",
     .source_title =
         "How we scaled the GitHub API with a sharded, replicated rate limiter in Redis",
     .source_org = "Robert Mosolgo, GitHub",
     .year = "2021",
     .url = "https://github.blog/2021-04-05-how-we-scaled-github-api-sharded-replicated-rate-"
            "limiter-redis/",
     .claim = "Reading a rate limit from a Redis replica went wrong: a replica returned a window "
              "that had expired while the primary had already opened a new one.",
     .experiment = "cluster",
     .command = "build/ratelab claims github_replica_read",
     .deterministic = false,
     .needs_redis = true,
     .run = rl_claim_github_replica_read},
    {.id = "cluster_failover_lost_writes",
     .source_title = "Redis cluster specification (Write safety)",
     .source_org = "Redis",
     .year = "not found",
     .url = "https://redis.io/topics/cluster-spec/",
     .claim = "Replication is asynchronous, so a failover can lose writes the primary had "
              "acknowledged; a manual failover waits for the replica and loses none.",
     .experiment = "stress",
     .command = "build/ratelab stress --algo redis_fixed_window --redis-cluster 3x1 --fault "
                "stall-replica@0ms,kill-primary@1s --threads 2 --reps 1 --duration 6s --limit "
                "2000 --interval 20s; build/ratelab stress --algo redis_fixed_window "
                "--redis-cluster 3x1 --fault failover@300ms --threads 2 --reps 1 --duration 2s "
                "--limit 2000 --interval 20s",
     .deterministic = false,
     .needs_redis = true,
     .run = rl_claim_failover_lost_writes},
    {.id = "redis_article_qps_cluster",
     .source_title = "Redis'e Dayalı Akım Sınırlama Sisteminin Tasarımı (Design of a Redis-based "
                     "rate limiting system; a Turkish machine translation, original not found)",
     .source_org = "not found",
     .year = "not found",
     .url = "URL not found",
     .claim = "Its Lua token bucket serves 250, 2000 and 5000 QPS at 1, 10 and 100 client "
              "threads against a 2-core managed Redis (here rerun on a Redis Cluster).",
     .experiment = "stress",
     .command = "build/ratelab stress --algo redis_tb_article,redis_noop --redis-cluster 3x1 "
                "--threads 1,10,100 --duration 150ms --reps 3",
     .deterministic = false,
     .needs_redis = true,
     .run = rl_claim_redis_qps_cluster},
    {.id = NULL},
};
