# ratelab — one non-recursive Makefile. Build outputs go under build/.
#
#   make              build/ratelab (-O2 -Wall -Wextra -Werror)
#   make test         make deps, then format and layering checks, the Google
#                     Benchmark build, every CUnit suite, the teaching build's
#                     suite, a ThreadSanitizer pass over the threaded suites,
#                     both allocators, the quick conformance subset
#                     (installs the peers' packages when missing), the paper's
#                     tables, and reference-check (the committed figures and
#                     paper made from the reference CSVs as they are)
#   make bench        make deps, then the quick suite: results/quick-<host>.csv,
#                     its tables, and its figures in plots/out/
#   make teach        build/ratelab-teach, race points widened
#   make deps         install missing Debian packages (nothing when present)
#   make mutants      every seeded bug in tests/mutants/ applied to a scratch
#                     copy, rebuilt, and killed by its named suites (CI)
#   make alloc-compare  allocation-heavy runs under glibc and jemalloc, ratios
#   make conformance  the peers' own code, decision by decision (docs/conformance.md)
#   make fuzz, make soak, make plots, make paper, make reference: see their
#                     sections below
#   SAN=address|thread make …   sanitized build under build/san-<kind>/
#   MALLOC=jemalloc make …      linked with jemalloc, under build/jemalloc/

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Werror
STD     := -std=c11 -D_GNU_SOURCE -pthread
# Every include names its path from the repository root: "harness/run/stress.h".
INCLUDE := -I.
LDLIBS  := -lhiredis -pthread -lm

# Quiet by default; V=1 shows every command.
ifeq ($(V),1)
Q :=
say = @true
else
Q := @
say = @printf '  %-6s %s\n' $(1) $(2)
endif

SAN ?=
ifeq ($(SAN),)
BUILD := build
else ifneq ($(filter $(SAN),address thread),)
BUILD := build/san-$(SAN)
SANFLAGS := -fsanitize=$(SAN) -fno-omit-frame-pointer
else
$(error SAN must be address or thread, not '$(SAN)')
endif

# The allocator is a build switch, as in Redis: glibc's malloc by default,
# MALLOC=jemalloc links Debian's libjemalloc (malloc, free, … replaced for the
# whole process) into its own folder. Which malloc a run used is found at run
# time (harness/sys/allocator.c), so an LD_PRELOADed one is reported too. The
# sanitizers bring their own malloc, so the two switches do not combine.
MALLOC ?=
ifeq ($(MALLOC),jemalloc)
ifneq ($(SAN),)
$(error MALLOC=jemalloc and SAN=$(SAN) do not combine: the sanitizer replaces malloc itself)
endif
BUILD       := build/jemalloc
MALLOC_LIBS := -ljemalloc
MALLOC_DEFS := -DRL_MALLOC_JEMALLOC
else ifneq ($(filter-out glibc,$(MALLOC)),)
$(error MALLOC must be glibc (the default) or jemalloc, not '$(MALLOC)')
endif

ALL_CFLAGS  = $(STD) $(WARN) $(CFLAGS) $(SANFLAGS) $(INCLUDE) -MMD -MP
ALL_LDFLAGS = $(SANFLAGS) $(LDFLAGS)

GIT_REV := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
BUILD_DEFS = -DRL_GIT_REV='"$(GIT_REV)"' -DRL_CFLAGS='"$(strip $(CFLAGS) $(SANFLAGS))"'

# Every algorithm file wherever it sits in algorithms/ (a folder per family);
# the harness's layers, bottom up; the unit tests in tests/<room>/, the
# room of the code they test (tests/README.md).
HARNESS_LAYERS := $(shell sh tests/layering.sh --layers)
LIB_SRCS  := $(wildcard algorithms/*.c algorithms/*/*.c algorithms/*/*/*.c) $(wildcard workloads/*.c) \
             $(filter-out harness/cli/main.c,$(foreach d,$(HARNESS_LAYERS),$(wildcard harness/$(d)/*.c)))
TEST_ROOMS := support algorithms check keyed run experiments cli io sys report workloads
TEST_SRCS := $(foreach r,$(TEST_ROOMS),$(wildcard tests/$(r)/*.c))

# Lua scripts live in algorithms/redis/lua/ as plain files and are compiled in as
# C strings (rl_lua_<name>), so the binary needs no source tree at run time.
# The coordination stores' scripts (algorithms/coord/lua/) become rl_lua_coord_<name>.
LUA_SRCS := $(wildcard algorithms/redis/lua/*.lua)
LUA_GEN  := $(LUA_SRCS:algorithms/redis/lua/%.lua=build/gen/lua_%.c) \
            $(patsubst algorithms/coord/lua/%.lua,build/gen/lua_coord_%.c,$(wildcard algorithms/coord/lua/*.lua))

# Normal objects, and the teaching variant of the same sources.
LIB_OBJS        := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o) $(LUA_GEN:build/gen/%.c=$(BUILD)/obj/gen/%.o)
TEST_OBJS       := $(TEST_SRCS:%.c=$(BUILD)/obj/%.o)
TEACH_LIB_OBJS  := $(LIB_SRCS:%.c=build/teach/obj/%.o) $(LUA_GEN:build/gen/%.c=build/teach/obj/gen/%.o)
TEACH_TEST_OBJS := $(TEST_SRCS:%.c=build/teach/obj/%.o)

RATELAB       := $(BUILD)/ratelab
LIBRATELAB    := $(BUILD)/libratelab.a
TESTS         := $(BUILD)/ratelab-tests
TEACH_BIN     := build/ratelab-teach
TEACH_TESTS   := build/teach/ratelab-tests

.PHONY: all teach jemalloc test cluster-check docs docs-check docs-tools check-unit check-teach check-tsan check-allocators bench plots paper paper-tables-check \
        reference-manifest reference-plots reference-check reference-revision-check \
        alloc-compare reference soak conformance conformance-quick conformance-selftest conformance-bracket conformance-speed deps clean format format-check layering-check decisions-check decisions-update fuzz fuzz-build \
        fuzz-deps asm orders-check mutants FORCE model-check
.DEFAULT_GOAL := all

all: $(RATELAB)

# One set of rules for each build of the library: $(1) its folder, $(2) the
# compiler, $(3) the name of the variable that holds its flags, $(4) the
# label printed. The normal build (with its SAN and MALLOC variants), the
# teaching build and the fuzzing build differ only in these.
define library_rules
$(1)/obj/%.o: %.c
	@mkdir -p $$(dir $$@)
	$$(call say,$(4),$$@)
	$$(Q)$(2) $$($(3)) -c $$< -o $$@

$(1)/obj/gen/%.o: build/gen/%.c
	@mkdir -p $$(dir $$@)
	$$(call say,$(4),$$@)
	$$(Q)$(2) $$($(3)) -c $$< -o $$@

# build_info records the git revision and flags: rebuilt every time so a
# result row never carries a stale revision.
$(1)/obj/harness/sys/build_info.o: FORCE
$(1)/obj/harness/sys/build_info.o: $(3) += $$(BUILD_DEFS)

$(1)/libratelab.a: $(LIB_SRCS:%.c=$(1)/obj/%.o) $(LUA_GEN:build/gen/%.c=$(1)/obj/gen/%.o)
	@rm -f $$@
	$$(call say,AR,$$@)
	$$(Q)$$(AR) rcs $$@ $$^
endef
TEACH_CFLAGS = $(ALL_CFLAGS) -DRL_TEACH
$(eval $(call library_rules,$(BUILD),$$(CC),ALL_CFLAGS,CC))
$(eval $(call library_rules,build/teach,$$(CC),TEACH_CFLAGS,CC))
$(eval $(call library_rules,build/fuzz,$$(FUZZ_CC),FUZZ_CFLAGS,FUZZCC))

define lua_to_c
	@mkdir -p $(dir $@)
	$(call say,LUA,$@)
	$(Q){ printf '/* generated from $< by the Makefile: do not edit */\n'; \
	  printf 'const char rl_lua_%s[] =\n' '$(subst -,_,$(1))'; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$$/\\n"/' $<; \
	  printf '    ;\n'; } > $@
endef
build/gen/lua_coord_%.c: algorithms/coord/lua/%.lua
	$(call lua_to_c,coord_$*)
build/gen/lua_%.c: algorithms/redis/lua/%.lua
	$(call lua_to_c,$*)

$(RATELAB): $(BUILD)/obj/harness/cli/main.o $(LIBRATELAB)
	$(call say,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) $^ $(MALLOC_LIBS) $(LDLIBS) -o $@

$(TEACH_BIN): build/teach/obj/harness/cli/main.o build/teach/libratelab.a
	$(call say,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) $^ $(LDLIBS) -o $@

teach: $(TEACH_BIN)

# build/jemalloc/ratelab, whatever MALLOC says here.
jemalloc:
	$(Q)$(MAKE) --no-print-directory SAN= MALLOC=jemalloc all

$(TESTS): $(TEST_OBJS) $(LIBRATELAB)
	$(call say,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) $^ -lcunit $(MALLOC_LIBS) $(LDLIBS) -o $@

# The allocator test expects the malloc this build links.
$(TEST_OBJS): ALL_CFLAGS += $(MALLOC_DEFS)

$(TEACH_TESTS): $(TEACH_TEST_OBJS) build/teach/libratelab.a
	$(call say,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) $^ -lcunit $(LDLIBS) -o $@

# ---- tests ---------------------------------------------------------------
# The threaded suites (every suite named stress…) run again under
# ThreadSanitizer; the teaching suite runs against the race-widened build.
# Each runner exits non-zero on failure.
THREADED_SUITES := 'stress*' check_merge history_recorder lin_stream

test: deps
	$(MAKE) --no-print-directory format-check
	$(MAKE) --no-print-directory layering-check
	$(MAKE) --no-print-directory docs-check
	$(MAKE) --no-print-directory decisions-check
	$(MAKE) --no-print-directory orders-check
	$(MAKE) --no-print-directory gbench
	$(MAKE) --no-print-directory check-unit
	$(MAKE) --no-print-directory check-teach
	$(MAKE) --no-print-directory SAN=thread MALLOC= check-tsan
	$(MAKE) --no-print-directory SAN= MALLOC= check-allocators
	$(MAKE) --no-print-directory SAN= MALLOC= conformance-selftest
	$(MAKE) --no-print-directory SAN= MALLOC= conformance-quick
	$(MAKE) --no-print-directory paper-tables-check
	$(MAKE) --no-print-directory reference-check
	$(MAKE) --no-print-directory reference-revision-check

# The slower fault kinds on a private Redis Cluster (reshard, kill-primary,
# stall-replica then kill-primary: about a minute on 2 cores); make test
# runs the fast one (cluster_faults). Then the perf suite's Redis rows, one
# repetition: each script against its floor on a private server and cluster
# (tests/redis/floor_rows.sh checks their shape, never a figure). CI runs
# this target.
cluster-check: $(TESTS) $(RATELAB)
	$(TESTS) cluster_faults cluster_faults_slow coord_redis_cluster_slow
	sh tests/redis/floor_rows.sh $(RATELAB)

# The data-race lesson's test reads ThreadSanitizer's report from the
# sanitized ratelab (ratelab teach data-race runs it).
TSAN_BIN := build/san-thread/ratelab

check-unit: $(TESTS) $(RATELAB)
	$(MAKE) --no-print-directory SAN=thread MALLOC= $(TSAN_BIN)
	RATELAB_BIN=$(RATELAB) RATELAB_TSAN_BIN=$(TSAN_BIN) $(TESTS)

check-teach: $(TEACH_TESTS) $(TEACH_BIN)
	RATELAB_BIN=$(TEACH_BIN) RATELAB_RACE_NS=20000 $(TEACH_TESTS) teach

check-tsan: $(TESTS)
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 $(TESTS) $(THREADED_SUITES)

# Each binary's result rows name the malloc it ran on: the normal build glibc,
# the jemalloc build jemalloc, and the normal build jemalloc when it is
# LD_PRELOADed (run-time detection, not a build-time label).
check-allocators: $(RATELAB) jemalloc
	sh tests/allocator_check.sh $(RATELAB) glibc
	sh tests/allocator_check.sh build/jemalloc/ratelab jemalloc
	sh tests/allocator_check.sh --preload libjemalloc.so.2 $(RATELAB) jemalloc

# ---- benchmarks ----------------------------------------------------------
HOST := $(shell hostname -s 2>/dev/null || hostname)

# On a fresh machine too: the packages first, then the build, then the run
# (in that order whatever -j says).
bench:
	$(Q)$(MAKE) --no-print-directory deps
	$(Q)$(MAKE) --no-print-directory all
	$(RATELAB) bench --suite quick --out results/quick-$(HOST).csv
	plots/render.sh plots/out $(RATELAB) results/quick-$(HOST).csv

# ---- figures -------------------------------------------------------------
# From the committed reference runs by default; RESULTS=DIR for another set.
RESULTS ?= results/reference

plots:
	$(Q)$(MAKE) --no-print-directory deps
	$(Q)$(MAKE) --no-print-directory all
	plots/render.sh plots/out $(RATELAB) $(wildcard $(RESULTS)/*.csv)

# Every reference result at one clean commit, so a figure, a docs page and
# the paper state one revision, host and date (about 15 minutes on 2 vCPUs;
# nothing else should run meanwhile). The binary is built once, first, on
# the clean tree: the result files it writes do not make its revision dirty.
REFERENCE_SUITES := threads memory-order accuracy keys redis clocks pareto sharded claims perf cluster cluster-faults nodes shaping linearizable
reference:
	@git diff --quiet HEAD -- . ':!results' || { echo "make reference: commit first: the results name one revision"; exit 1; }
	$(Q)$(MAKE) --no-print-directory deps
	$(Q)$(MAKE) --no-print-directory conformance conformance-speed
	set -e; for s in $(REFERENCE_SUITES); do \
	    $(RATELAB) bench --suite $$s --reps 3 --out results/reference/$$s.csv; done
	$(Q)$(MAKE) --no-print-directory reference-manifest reference-plots
	$(Q)$(MAKE) --no-print-directory reference-revision-check

# results/reference/MANIFEST: each reference CSV's sha256, revision, host
# and dates (tests/provenance.sh). make reference writes it; run it alone
# only for CSVs committed on purpose without rerunning the suites.
reference-manifest:
	sh tests/provenance.sh manifest .

# plots/reference/: the figures of results/reference/*.csv, each with its
# .src (the sha256 of every CSV and script it was drawn from).
reference-plots: $(RATELAB)
	rm -rf build/reference-plots
	plots/render.sh build/reference-plots $(RATELAB) $(wildcard results/reference/*.csv) > /dev/null
	rm -f plots/reference/*.png plots/reference/*.png.src
	cp build/reference-plots/*.png build/reference-plots/*.png.src plots/reference/

# make test: a committed artefact (paper/ratelab.pdf, plots/reference/*.png,
# a generated docs block's .src) is made from the reference CSVs as they are
# now and names their revisions; the CSVs are the MANIFEST's. Seconds, no
# LaTeX. Then the check's own test on scratch copies.
reference-check:
	$(Q)sh tests/provenance.sh check .
	$(Q)mkdir -p build && sh tests/provenance_test.sh > build/provenance-test.log 2>&1 || { cat build/provenance-test.log; exit 1; }
	$(Q)tail -n 1 build/provenance-test.log

# Every reference CSV at one clean revision (make reference ends with it;
# make test runs it after reference-check).
reference-revision-check:
	$(Q)sh tests/provenance.sh revisions .

# Conformance against the peers' own code (tests/conformance/README.md):
# x/time/rate, Guava, Linux ___ratelimit, nginx limit_req, and the shapers'
# peers go_wait (x/time/rate ReserveN/WaitN/CancelAt), juju
# (juju/ratelimit Take/Wait), guava_wait (Guava acquire/tryAcquire with a
# timeout, SmoothBursty and SmoothWarmingUp) and nginx_delay (limit_req
# burst= delay=, live), release times compared too. Installs their
# Debian packages itself (not make deps). CONFORMANCE_TRACES a peer
# (default 40), CONFORMANCE_SEED (default 1), PEERS to pick some. Fails
# unless every peer named compares at least the traces and attempts
# tests/conformance/caps.txt requires, none skipped, with no semantic
# mismatch and its excused mismatches under the cap there.
CONFORMANCE_TRACES ?= 40
CONFORMANCE_SEED   ?= 1
PEERS              ?= go guava linux nginx go_wait juju guava_wait nginx_delay
conformance: $(RATELAB)
	sh tests/conformance/run.sh $(RATELAB) results/conformance.csv $(CONFORMANCE_TRACES) \
	    $(CONFORMANCE_SEED) $(PEERS)

# make test's subset: 3 traces a peer (one with time going back), every
# peer, its packages installed when missing as make conformance does; the
# same rules with caps.txt's 3-trace rows. The summary stays in build/.
conformance-quick: $(RATELAB)
	sh tests/conformance/run.sh $(RATELAB) build/conformance-quick.csv 3 $(CONFORMANCE_SEED) $(PEERS)

# run.sh against a fake peer: a skipped trace, no trace, too few traces or
# attempts, excused mismatches above the cap and a semantic one each fail
# it (a few seconds, no real peer).
conformance-selftest: $(RATELAB)
	sh tests/conformance/selftest.sh $(RATELAB)

# Each peer's own development check of its driver's bracketing (real ≡
# port-rounded, port-exact ≡ ratelab) on seeded random configurations that
# run.sh does not draw (go/compare.sh, guava/verify.sh, linux/verify.sh,
# nginx/check.sh; their READMEs say what each checks). About a minute;
# CI runs it after make conformance. BRACKET_TRACES a peer (default 10).
BRACKET_TRACES ?= 10
conformance-bracket: $(RATELAB)
	$(Q)rm -rf build/conformance-bracket && mkdir -p build/conformance-bracket
	sh tests/conformance/go/build.sh build/conformance-bracket/go
	bash tests/conformance/go/gen_traces.sh build/conformance-bracket/go-traces $(BRACKET_TRACES) 7 >/dev/null
	bash tests/conformance/go/compare.sh build/conformance-bracket/go-traces build/conformance-bracket/go/driver
	sh tests/conformance/guava/verify.sh $(RATELAB) build/conformance-bracket/guava $(BRACKET_TRACES) 1
	sh tests/conformance/linux/build.sh build/conformance-bracket/linux
	bash tests/conformance/linux/verify.sh build/conformance-bracket/linux/driver $(RATELAB) $(BRACKET_TRACES) 1
	CONFORMANCE_WORK=build/conformance-bracket sh tests/conformance/nginx/check.sh $(RATELAB) $(BRACKET_TRACES) 1

# The peers' limiters beside tb_mutex and tb_cas in one run (ratios).
conformance-speed: $(RATELAB)
	sh tests/conformance/speed.sh $(RATELAB) results/conformance-speed.csv

# A long soak (SOAK_SECONDS per run, default 600): recorded keyed stress with
# key churn and a long replay, RSS sampled; then ASan's leak checker over
# the same runs, shorter. Not part of make test.
SOAK_SECONDS ?= 600
soak:
	$(Q)$(MAKE) --no-print-directory SAN= MALLOC= all
	$(Q)$(MAKE) --no-print-directory SAN=address MALLOC= all
	sh tests/soak.sh build/ratelab build/san-address/ratelab $(SOAK_SECONDS)

# The allocation-heavy configurations under both allocators in one run:
# throughput and peak RSS, jemalloc ÷ glibc (about 1.5 minutes on 2 vCPUs).
alloc-compare:
	$(Q)$(MAKE) --no-print-directory SAN= MALLOC= all
	$(Q)$(MAKE) --no-print-directory jemalloc
	sh harness/gbench/alloc_compare.sh build/ratelab build/jemalloc/ratelab

# ---- dependencies --------------------------------------------------------
# Debian packages, installed only when one is missing (apt-get update first:
# a fresh machine's package lists are empty).
DEB_PKGS := build-essential libcunit1-dev libjemalloc-dev gnuplot-nox libbenchmark-dev \
            libhiredis-dev redis-server time clang-format

deps:
	@missing=$$(for p in $(DEB_PKGS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing $$missing"; \
	  if [ "$$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi

# Every C and C++ source under the checked-in .clang-format (Debian's
# clang-format). format rewrites them; format-check (part of make test)
# fails on the first file that differs and names it.
FORMAT_SRCS = $(sort $(wildcard algorithms/*.[ch] algorithms/*/*.[ch] workloads/*.[ch] $(TEST_ROOMS:%=tests/%/*.[ch]) tests/fuzz/*.[ch] tests/asm/*.[ch] \
                harness/*/*.[ch] harness/*/*.cc))

format:
	clang-format -i $(FORMAT_SRCS)

format-check:
	@command -v clang-format >/dev/null || { echo "format-check: clang-format is missing (make deps)"; exit 1; }
	@clang-format --dry-run -Werror $(FORMAT_SRCS) && echo "format-check: $(words $(FORMAT_SRCS)) files as .clang-format says"

# No include goes up a layer (tests/layering.sh says which ones would).
# Every in-process algorithm's sim decisions on every workload, digested and
# compared with the committed list: a change that alters a decision fails
# here and names the logs that differ (tests/run/sim_decisions.sh).
# decisions-update rewrites the list when a change means to alter them.
DECISIONS_DIGEST := tests/run/sim_decisions.sha256
decisions-check: $(RATELAB)
	$(Q)sh tests/run/sim_decisions.sh $(RATELAB) build/sim-decisions >/dev/null
	$(Q)(cd build/sim-decisions && sha256sum *.csv) > build/sim-decisions.sha256
	$(Q)if diff -u $(DECISIONS_DIGEST) build/sim-decisions.sha256 > build/sim-decisions.diff; then \
	    echo "decisions-check: $$(wc -l < $(DECISIONS_DIGEST)) decision logs as committed"; \
	else \
	    echo "decisions-check: these sim decision logs differ from $(DECISIONS_DIGEST):"; \
	    grep '^[-+][0-9a-f]' build/sim-decisions.diff | awk '{print "  " $$2}' | sort -u; \
	    echo "(make decisions-update rewrites the list when the change is meant)"; exit 1; \
	fi

decisions-update: $(RATELAB)
	$(Q)sh tests/run/sim_decisions.sh $(RATELAB) build/sim-decisions >/dev/null
	$(Q)(cd build/sim-decisions && sha256sum *.csv) > $(DECISIONS_DIGEST)
	@echo "decisions-update: $(DECISIONS_DIGEST) rewritten ($$(wc -l < $(DECISIONS_DIGEST)) logs)"

layering-check:
	sh tests/layering.sh

# docs: re-run every transcript the pages mark (<!-- run -->, docs/tools/regen.sh);
# timing outputs are rendered from results/reference/*.csv by the command in
# the page. docs-check rewrites nothing and fails naming each stale block; it
# first proves the tool on tests/docs/fixture.md. Both need what the pages run:
# ratelab and the gbench shim (built first), spin for the models (installed,
# as make deps installs its packages, when missing), objdump (build-essential).
DOCS_NEEDS = $(RATELAB) $(BUILD)/ratelab-gbench

docs-tools: deps
	@dpkg -s spin >/dev/null 2>&1 || { echo "make docs: installing spin"; \
	  SUDO=$$([ "$$(id -u)" -eq 0 ] || echo sudo); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends spin; }
	$(Q)$(MAKE) --no-print-directory $(DOCS_NEEDS)

docs: docs-tools
	$(Q)sh docs/tools/regen.sh

docs-check: docs-tools
	$(Q)sh tests/docs/selftest.sh
	$(Q)sh docs/tools/regen.sh --check
	@echo "docs-check: every marked block in README.md and docs/*.md is current"

clean:
	rm -rf build

FORCE:

# Keep the generated Lua sources: they are inputs, not throwaway steps.
.SECONDARY: $(LUA_GEN)

-include $(LIB_OBJS:.o=.d) $(TEST_OBJS:.o=.d) $(TEACH_LIB_OBJS:.o=.d) $(TEACH_TEST_OBJS:.o=.d)
-include $(BUILD)/obj/harness/cli/main.d build/teach/obj/harness/cli/main.d

# ---- Google Benchmark ----------------------------------------------------
# build/ratelab-gbench: the one C++ file (harness/gbench/gbench_shim.cc) registers
# every in-process, thread-safe algorithm with Google Benchmark (Debian's
# libbenchmark-dev). gbench-check measures the same algorithms with it and
# with `ratelab stress`, single-threaded, and prints the ratio of their ns/op.
CXX      ?= g++
CXXFLAGS ?= -O2 -g
GBENCH   := $(BUILD)/ratelab-gbench
ALL_CXXFLAGS = -std=c++17 $(WARN) $(CXXFLAGS) $(SANFLAGS) -pthread $(INCLUDE) -MMD -MP

.PHONY: gbench gbench-check

gbench: $(GBENCH)

$(BUILD)/obj/harness/gbench/gbench_shim.o: harness/gbench/gbench_shim.cc
	@mkdir -p $(dir $@)
	$(call say,CXX,$@)
	$(Q)$(CXX) $(ALL_CXXFLAGS) -c $< -o $@

$(GBENCH): $(BUILD)/obj/harness/gbench/gbench_shim.o $(LIBRATELAB)
	$(call say,LD,$@)
	$(Q)$(CXX) $(ALL_LDFLAGS) $^ -lbenchmark $(LDLIBS) -o $@

gbench-check: $(GBENCH) $(RATELAB)
	sh harness/gbench/gbench_check.sh $(GBENCH) $(RATELAB)

-include $(BUILD)/obj/harness/gbench/gbench_shim.d

# ---- fuzzing -------------------------------------------------------------
# make fuzz: libFuzzer targets (tests/fuzz/fuzz_*.c), built with Debian's clang
# under ASan and UBSan (UB aborts), each run FUZZ_SECONDS over its committed
# seeds tests/fuzz/corpus/<name>/ (and its dictionary <name>.dict). Inputs a
# run finds go to build/fuzz/found/<name>/, never into the corpus; a crash
# fails the run and prints its reproducer (build/fuzz/crashes/<name>/) and
# the command that replays it. The library is compiled again with clang and
# the same flags into build/fuzz/obj/. make fuzz-build only builds.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_OPT     ?= -O1 -g
FUZZ_SAN     := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
                -fno-omit-frame-pointer
FUZZ_CFLAGS   = $(STD) -Wall -Wextra $(FUZZ_OPT) $(FUZZ_SAN) $(INCLUDE) -MMD -MP
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS    := $(FUZZ_TARGETS:%=build/fuzz/%)
FUZZ_LIB_OBJS := $(LIB_SRCS:%.c=build/fuzz/obj/%.o) $(LUA_GEN:build/gen/%.c=build/fuzz/obj/gen/%.o)
# clang and its runtimes (libFuzzer's is only a Recommends of clang in Debian).
FUZZ_DEB_PKGS := clang libclang-rt-dev

fuzz: fuzz-deps
	$(Q)$(MAKE) --no-print-directory fuzz-build
	sh tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-build: $(FUZZ_BINS)

fuzz-deps:
	@missing=$$(for p in $(FUZZ_DEB_PKGS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "make fuzz-deps: installing $$missing"; \
	  if [ "$$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi

# The targets themselves are held to -Werror; the library to the normal
# build's warnings (gcc's -Werror there).
build/fuzz/obj/tests/fuzz/%.o: FUZZ_CFLAGS += $(WARN)
# fuzz_lin_stream: tiny reads and batches, so small inputs reach the buffer's
# and the batch ring's edges
build/fuzz/obj/harness/check/lin_stream.o: FUZZ_CFLAGS += -DLIN_STREAM_BLOCK=64 -DLIN_STREAM_BATCH=3

$(FUZZ_BINS): build/fuzz/%: build/fuzz/obj/tests/fuzz/%.o build/fuzz/libratelab.a
	$(call say,LD,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_SAN) $(LDFLAGS) $^ $(LDLIBS) -o $@

-include $(FUZZ_LIB_OBJS:.o=.d) $(FUZZ_TARGETS:%=build/fuzz/obj/tests/fuzz/%.d)

# ---- paper ---------------------------------------------------------------
# The paper's generated tables and numbers parse (no LaTeX needed): part of
# make test, so a results change that breaks the paper fails there.
paper-tables-check: $(RATELAB)
	sh paper/tables.sh $(RATELAB) build/paper-tables
	sh paper/check_tables.sh build/paper-tables paper/ratelab.tex

# make paper: paper/ratelab.pdf from the committed results. The tools first
# (LaTeX, gnuplot, poppler-utils: installed when missing, as make deps
# does, naming what it installs), then the build, then paper/build.sh:
# figures by plots/render.sh, tables and every number in the prose by
# paper/tables.sh, checked by paper/check_tables.sh, then latexmk; all of
# it under paper/out/ (ignored). Always runs: no file is named paper.
paper:
	$(Q)sh paper/build.sh tools
	$(Q)$(MAKE) --no-print-directory all
	$(Q)sh paper/build.sh $(RATELAB)

# ---- asm -----------------------------------------------------------------
# make asm: the atomic and fence instructions of every memory-order variant
# (fw_cas, fw_cas_acqrel, tb_cas, tb_cas_relaxed, and one fetch-add, store
# and load per order in tests/asm/orders.c) on x86-64, AArch64 (armv8-a
# without LSE, armv8.1-a with it, armv8.3-a with RCpc) and POWER, read off
# objdump into build/asm/table.md, then
# asserted by tests/asm/check.sh; then tests/asm/cost.sh times the host's
# orders.o into build/asm/cost.md (printed, never asserted). Installs the
# Debian cross compilers and their headers when missing. See
# tests/asm/README.md.
asm:
	$(Q)sh tests/asm/build.sh build/asm
	$(Q)sh tests/asm/check.sh build/asm
	$(Q)sh tests/asm/cost.sh build/asm

# make orders-check (part of make test): the memory order of every atomic
# operation in every algorithm, read off the host gcc's -O2 GIMPLE, against
# the committed tests/asm/orders.expected, in seconds and with no cross
# compiler, so a changed order fails make test, not only make asm
# (tests/asm/README.md).
orders-check:
	$(Q)sh tests/asm/orders_check.sh build/asm-orders

# make mutants: every seeded bug in tests/mutants/mutants.list (a small patch
# and the make test steps that must kill it) applied one at a time to a
# scratch copy of the tracked tree (build/mutants/src), rebuilt and run
# against those steps; the unmutated copy must pass them first. Prints the
# table and fails when any mutant survives (tests/mutants/README.md). CI
# runs it after make test. MUTANTS="a b" runs only those.
MUTANTS ?=
mutants: deps
	$(Q)sh tests/mutants/run.sh $(MUTANTS)

# ---- models --------------------------------------------------------------
# make model-check: every Promela model in tests/models/ under SPIN (steps 1
# and 2 of the C++ article violated, step 3 verified, store buffering under
# TSO violated without an mfence and verified with it); scratch under
# build/models/. Installs Debian's spin (and gcc) when missing.
model-check:
	$(Q)dpkg -s spin >/dev/null 2>&1 || { SUDO=$$([ "$$(id -u)" -eq 0 ] || echo sudo); \
		$$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq --no-install-recommends spin gcc; }
	$(Q)sh tests/models/check.sh build/models
