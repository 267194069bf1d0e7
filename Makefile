# asyncstyles -- what does an async style itself cost?
#
#   make compare   set up, build, run the default profile, print the table, draw charts
#   make test      set up, build, run every test suite (cmocka, go test, cargo test, bats, runner)
#   make quick     a few-second run of the quick profile
#   make deps      find or install the toolchain (run by compare and test, and
#                  by any build when $(BUILD)/deps.env is missing); on Linux also
#                  fetches test-macos-link's zig and pinned sources (not when a build runs it)
#   make all       build every C, Go and Rust program, the C unit tests and the runner's launcher
#                  (the Rust programs with the cargo make deps found: scripts/rust-build.sh;
#                  without one, build/bin/rust.skip says why and the Rust variants are skipped)
#   make micro     the micro-benchmarks of c/micro/ beside Node and Go (ns per switch, per await, ...)
#   make aa        a variant against itself in lockstep, many times: the share of intervals that
#                  exclude 1 where nothing differs, at most 5% (AA_ARGS="--noise" adds a load)
#   make tune      what on this host moves timings (CPU governor, turbo, ASLR) and what it
#                  should be; changes it only with TUNE_ARGS=--apply (as root), --reset undoes
#   make counts    instructions per operation of every C, Go and Rust variant under valgrind, exact
#                  where the clock is not (COUNTS_ARGS="--filter ^cacheloop/ --breakdown")
#   make test-aarch64   the C suite on AArch64: natively, or cross-built and run under qemu (part of test)
#   make test-asm       the coroutine switches assembled for Mach-O and ELF, symbols listed; where the C programs yield (part of test)
#   make test-macos-link  every C program cross-compiled and linked for aarch64- and x86_64-macos with zig (part of test; skips off Linux)
#   make test-lint      shellcheck over the scripts make test runs, actionlint over the workflows (part of test)
#   make test-aplus     the Promises/A+ suite against the C promises (part of test)
#   make test-sanitize  ASan+UBSan, TSan and valgrind over the C code (part of test on Linux)
#   make test-fpenv     the coroutine tests of the ABI-strict build, -DAB_CORO_SAVE_FPENV (part of test)
#   make test-fuzz      the httpchain server's request handling under libFuzzer, a few seconds (part of test on Linux)
#   make plots RUN=DIR  redraw a run's charts, summaries and REPORT.md from its samples.csv
#   make hosts     cross-host charts: the newest run under results/ and each other host's newest of its profile
#   make runtimes  the pinned Node and Go runtimes of runtimes/lock.json under build/runtimes/
#                  (installs only what is missing), and go/cmd/* built with each Go into build/bin/go<version>/
#   make seed-runtimes  only the pinned versions the seed profile's ladders run on (make
#                  compare PROFILE=seed installs them: runner/analysis/ladder.py --pins)
#   make clean     remove build/ (results/ is never touched)
#
# Variables a user may set:
#   CC, CFLAGS, LDFLAGS   compiler and extra flags, merged after the project's own
#   AR                    archiver for the static libraries (default ar)
#   OPT                   optimisation flags (default -O2 -g)
#   BUILD                 out-of-tree build folder (default build)
#   PROFILE               runner profile for compare (default "default")
#   ARGS                  extra runner options, e.g. ARGS="--rounds 20 --filter c/"
#   RUN                   a run folder, for `make plots`
#   RESULTS               results folder for `make hosts` (default results)
#   PYTHON, GO, NODE, ACTIONLINT   override what `make deps` found
#   GOCACHE, GOPATH       Go's caches (with HOME unset, `make deps` chooses them, deps.env)
#
# C sources (what `make c` builds from c/):
#   c/lib/*.c *.S        the shared runtime, archived in build/c/libab.a
#   c/<w>/               a workload w (every folder of c/ but lib, tests, micro):
#     main.c             its driver, build/bin/c-<w>
#     main_<name>.c      another program of the workload with its own main (a
#                        server, say), build/bin/c-<w>-<name> (`_` in <name> becomes `-`)
#     any other .c       the workload's pieces (styles, backends), archived in
#                        build/c/<w>/lib<w>.a and linked into each of its programs
#                        and into every unit test
#     uses               optional: other workloads whose pieces its programs
#                        link too, one name a line (cacheloop reads its misses
#                        through readfile's backends)
#     build.mk           optional: what it needs from outside the project, flags,
#                        libraries, objects (httpchain's llhttp, readfile's liburing)
#   c/tests/test_*.c     cmocka unit tests, build/bin/test_* (include a workload's
#                        headers as "readfile/readfile.h": tests get -Ic)
#   c/micro/*.c          micro-benchmarks, build/bin/micro-*
#   A file named *_linux.c (or .S) is built only on Linux, *_darwin.c only on
#   macOS, in c/lib and in workload folders alike: an OS-specific backend needs
#   no edit here.
#
# GNU make 3.81 compatible (macOS ships it): no ::=, no $(file), no .ONESHELL.

BUILD ?= build
OPT ?= -O2 -g
PROFILE ?= default
ARGS ?=
CC ?= cc
PKG_CONFIG ?= pkg-config

UNAME_S := $(shell uname -s)

# What `make deps` found; read when a recipe runs, after deps has run.  A
# target that needs them has $(DEPS_ENV) as an order-only prerequisite, so
# that `make` after `make clean` or in a fresh clone runs deps first.
DEPS_ENV = $(BUILD)/deps.env
PYTHON ?= $(shell sed -n 's/^PYTHON=//p' '$(DEPS_ENV)' 2>/dev/null)
GO ?= $(shell sed -n 's/^GO=//p' '$(DEPS_ENV)' 2>/dev/null)
NODE ?= $(shell sed -n 's/^NODE=//p' '$(DEPS_ENV)' 2>/dev/null)
ACTIONLINT ?= $(shell sed -n 's/^ACTIONLINT=//p' '$(DEPS_ENV)' 2>/dev/null)
# Go's caches when deps found it has none of its own (HOME unset: every Go
# build, and so `make all` for a C-only run, failed on GOCACHE); empty, which
# Go reads as unset, otherwise.  Exported to every recipe (go runs in recipes
# and in the runner's); recursive, so that deps.env is read after deps ran.
# An empty one in the environment counts as none: a make run by another make's
# recipe (make test's suites) gets the outer one's empty export, and ?= kept
# it, so a Go build with HOME unset failed there on GOCACHE.
ifeq ($(strip $(GOCACHE)),)
GOCACHE = $(shell sed -n 's/^GOCACHE=//p' '$(DEPS_ENV)' 2>/dev/null)
endif
ifeq ($(strip $(GOPATH)),)
GOPATH = $(shell sed -n 's/^GOPATH=//p' '$(DEPS_ENV)' 2>/dev/null)
endif
export GOCACHE GOPATH

# Recursive (=) on purpose: pkg-config is asked when a recipe runs, after deps.
UV_CFLAGS = $(shell $(PKG_CONFIG) --cflags libuv 2>/dev/null)
UV_LIBS = $(shell $(PKG_CONFIG) --libs libuv 2>/dev/null)
CMOCKA_CFLAGS = $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS = $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)
STD = -std=c11
WARN = -Wall -Wextra
ifeq ($(UNAME_S),Darwin)
FEATURES = -D_DARWIN_C_SOURCE
else
FEATURES = -D_DEFAULT_SOURCE -D_GNU_SOURCE
endif
# A frame larger than a coroutine stack's guard page (4 KiB) could jump over
# it unnoticed: where the compiler can, it probes such frames page by page, so
# an overflow always hits the guard and is reported (c/lib/stack.h).  gcc on
# AArch64 assumes a 64 KiB guard unless told (the --param, which clang lacks).
# Tried once with test compiles; -Werror so that a compiler that only warns
# about an unknown flag is not taken at its word.
SC_TRY = { echo 'int main(void){return 0;}' | $(CC) -Werror $(1) -x c -c -o /dev/null - 2>/dev/null && echo $(1); }
STACK_CLASH := $(shell $(call SC_TRY,-fstack-clash-protection --param stack-clash-protection-guard-size=12) || $(call SC_TRY,-fstack-clash-protection))
# The unit tests are told which flags were found: test_coro asks the compiled
# code whether it probes large frames, and skips the overflow test, saying
# why, when it does not (a gcc given the flag fails it instead).
TEST_DEFS = $(if $(STACK_CLASH),-DAB_STACK_CLASH_FLAGS='"$(STACK_CLASH)"')
ALL_CFLAGS = $(STD) $(WARN) $(FEATURES) $(STACK_CLASH) -Ic/lib $(UV_CFLAGS) $(EXT_CFLAGS) $(OPT) $(CFLAGS) -MMD -MP
ALL_ASFLAGS = $(FEATURES) -Ic/lib $(OPT) $(CFLAGS) -MMD -MP
ALL_LDFLAGS = $(OPT) $(LDFLAGS)
LIBS = $(UV_LIBS) $(EXT_LIBS) -lm

# Sources of the other OSes are left out (see the header); `os_only` filters a list.
HOST_OS := $(if $(filter Darwin,$(UNAME_S)),darwin,$(if $(filter Linux,$(UNAME_S)),linux,other))
OTHER_OS := $(filter-out $(HOST_OS),linux darwin)
os_only = $(filter-out $(foreach o,$(OTHER_OS),%_$(o).c %_$(o).S),$(1))
objs = $(patsubst c/%.S,$(BUILD)/c/%.o,$(patsubst c/%.c,$(BUILD)/c/%.o,$(1)))

WORKLOADS := $(filter-out lib tests micro,$(patsubst c/%/,%,$(wildcard c/*/)))
LIB_OBJ := $(call objs,$(call os_only,$(wildcard c/lib/*.c c/lib/*.S)))
LIBAB := $(BUILD)/c/libab.a
# Per workload: its programs (main.c, main_*.c) and its pieces (the rest).
w_sources = $(call os_only,$(wildcard c/$(1)/*.c))
w_mains = $(filter c/$(1)/main.c c/$(1)/main_%.c,$(call w_sources,$(1)))
w_parts = $(filter-out c/$(1)/main.c c/$(1)/main_%.c,$(call w_sources,$(1)))
w_lib = $(if $(call w_parts,$(1)),$(BUILD)/c/$(1)/lib$(1).a)
w_uses = $(foreach u,$(shell cat 'c/$(1)/uses' 2>/dev/null),$(call w_lib,$(u)))
# c/<w>/main.c -> c-<w>; c/<w>/main_<name>.c -> c-<w>-<name>
w_program = $(BUILD)/bin/c-$(1)$(patsubst main%,%,$(subst _,-,$(basename $(notdir $(2)))))
W_LIBS := $(foreach w,$(WORKLOADS),$(call w_lib,$(w)))
C_BINS := $(foreach w,$(WORKLOADS),$(foreach m,$(call w_mains,$(w)),$(call w_program,$(w),$(m))))
C_TESTS := $(patsubst c/tests/%.c,$(BUILD)/bin/%,$(wildcard c/tests/test_*.c))
# Micro-benchmarks: each c/micro/*.c is a program of its own, build/bin/micro-*.
MICRO_BINS := $(patsubst c/micro/%.c,$(BUILD)/bin/micro-%,$(wildcard c/micro/*.c))
# Their objects are made by pattern rules alone, so make would take them for
# intermediate files and delete them after the first build; their .d files
# (-MMD) then name them as targets, and the next build compiled all of them
# again.  Kept: a second `make all` compiles nothing.
.SECONDARY: $(patsubst c/%.c,$(BUILD)/c/%.o,$(wildcard c/tests/test_*.c c/micro/*.c))
GO_CMDS := $(patsubst go/cmd/%/,%,$(wildcard go/cmd/*/))
GO_BINS := $(foreach w,$(GO_CMDS),$(BUILD)/bin/go-$(w))
# The runner starts every measured program through this launcher (runner/measure/launch.c).
LAUNCH := $(BUILD)/bin/launch
# The empty C program whose wall time is a C process's start-up (runner/measure/empty.c).
C_EMPTY := $(BUILD)/bin/c-empty

.PHONY: all c go rust test-rust deps runtimes seed-runtimes compare quick counts aa tune test test-c test-fpenv test-go test-bats test-runner test-sanitize test-aarch64 test-aplus test-asm test-lint test-fuzz micro plots hosts clean

all: c go rust $(LAUNCH) $(C_EMPTY)

c: $(C_BINS) $(C_TESTS) $(MICRO_BINS)

go: $(GO_BINS)

# rust/ is one Cargo workspace: cargo tracks its own dependencies, so it runs
# every time (a build with nothing to do takes a fraction of a second).
rust: | $(DEPS_ENV)
	@sh scripts/rust-build.sh "$(BUILD)"

# Every C program `all` builds, one a line: what make test-macos-link builds
# and checks for macOS (scripts/macos-link.sh).
.PHONY: c-programs
c-programs:
	@printf '%s\n' $(C_BINS) $(C_TESTS) $(MICRO_BINS) $(LAUNCH) $(C_EMPTY)

# Then zig and the pinned sources of test-macos-link (into $(BUILD)/macos/deps,
# once): only here, not when a build runs deps because deps.env is missing
# (a scratch BUILD of a test, make test-fpenv's), which never need them.
deps:
	@sh scripts/deps.sh "$(BUILD)"
	@sh scripts/macos-link.sh --deps "$(BUILD)"

# deps.env missing: run deps once.  When a goal runs deps anyway (`make deps
# all`, `make test`), deps.env waits for it instead of running deps a second time.
DEPS_GOALS = deps compare quick test plots hosts
ifneq ($(filter $(DEPS_GOALS),$(MAKECMDGOALS)),)
$(DEPS_ENV): deps ;
else
$(DEPS_ENV):
	@sh scripts/deps.sh "$(BUILD)"
endif

# A deps.env without PYTHON= (emptied by a full disk, cut, edited) is made
# again, where every recipe then ran "" as the Python ("Permission denied").
ifeq ($(shell grep -qs '^PYTHON=.' '$(DEPS_ENV)' && echo ok),)
$(DEPS_ENV): FORCE
endif

# The compiler and every flag the objects and programs are made with, one
# line in $(BUILD)/flags, rewritten (below, once the workloads' build.mk have
# added theirs) only when it changes: every object and program depends on it,
# so `make OPT=-O0` or `make CC=clang` after a default build compiles
# everything again, where it linked the objects of the old flags and said
# nothing.  Written when the Makefile is read, not by a rule, so that `make
# -n` does not take it for remade.
FLAGS_STAMP := $(BUILD)/flags
FLAGS_LINE = $(CC) | $(ALL_CFLAGS) | $(ALL_ASFLAGS) | $(TEST_DEFS) | $(ALL_LDFLAGS) | $(LIBS) | $(AR)
# Only when it could not be written (an unwritable BUILD): remade every time.
$(FLAGS_STAMP): ;

# Listed first: GNU make 3.81 takes the first pattern rule that matches.
# Objects depend on the Makefile and the workloads' build.mk too: they hold
# their flags.
BUILD_MKS := $(wildcard c/*/build.mk)
# Paths in recipes are quoted: the clone's own path may hold a space (BUILD,
# relative to it, may not: make splits target names on blanks).
$(BUILD)/c/tests/%.o: c/tests/%.c Makefile $(BUILD_MKS) $(FLAGS_STAMP) | $(DEPS_ENV)
	@mkdir -p "$(dir $@)"
	$(CC) $(ALL_CFLAGS) -Ic $(CMOCKA_CFLAGS) $(TEST_DEFS) -c "$<" -o "$@"

$(BUILD)/c/%.o: c/%.c Makefile $(BUILD_MKS) $(FLAGS_STAMP) | $(DEPS_ENV)
	@mkdir -p "$(dir $@)"
	$(CC) $(ALL_CFLAGS) -c "$<" -o "$@"

$(BUILD)/c/%.o: c/%.S Makefile $(BUILD_MKS) $(FLAGS_STAMP) | $(DEPS_ENV)
	@mkdir -p "$(dir $@)"
	$(CC) $(ALL_ASFLAGS) -c "$<" -o "$@"

# An archive, from scratch: `ar rcs`, but on macOS, whose ranlib (which Apple's
# ar runs itself unless told S) warns "has no symbols" about the switch of the
# other architecture (an empty object by design, c/lib/coro_switch_*.S): there
# `ar Scr`, then Apple's ranlib told not to, so that a real warning stands
# out.  Arguments: the archive, its members.
RANLIB ?= ranlib
ifeq ($(UNAME_S)$(RANLIB),Darwinranlib)
archive = rm -f "$(1)" && $(AR) Scr $(1) $(2) && $(RANLIB) -no_warning_for_no_symbols $(1)
else
archive = rm -f "$(1)" && $(AR) rcs $(1) $(2)
endif

$(LIBAB): $(LIB_OBJ)
	@mkdir -p "$(dir $@)"
	$(call archive,$@,$(LIB_OBJ))

# A workload that needs something from outside the project says so in
# c/<w>/build.mk: a library the system ships as sources (httpchain's llhttp,
# as Debian ships it) or an optional one (readfile's liburing).  It adds
# objects to EXT_OBJ_<w> (archived with the workload's pieces), flags to
# EXT_CFLAGS, libraries to EXT_LIBS, and the rules for its objects.
EXT_CFLAGS =
EXT_LIBS =
-include $(BUILD_MKS)

ifeq ($(filter clean,$(MAKECMDGOALS)),)
# A temporary file of this make's own (two makes at once), renamed over it.
FLAGS_WRITTEN := $(shell mkdir -p '$(BUILD)' 2>/dev/null && t='$(FLAGS_STAMP)'.$$$$ && \
  printf '%s\n' '$(subst ','\'',$(FLAGS_LINE))' > "$$t" 2>/dev/null && \
  { cmp -s "$$t" '$(FLAGS_STAMP)' && rm -f "$$t" || mv -f "$$t" '$(FLAGS_STAMP)'; })
endif

# A workload's pieces in one archive; each of its programs links its own main
# with it (arguments: the workload, then one main source).
define WORKLOAD_template
$(call w_lib,$(1)): $(call objs,$(call w_parts,$(1))) $(EXT_OBJ_$(1))
	@mkdir -p "$$(dir $$@)"
	$$(call archive,$$@,$$^)
endef
define PROGRAM_template
$(call w_program,$(1),$(2)): $(call objs,$(2)) $(call w_lib,$(1)) $(call w_uses,$(1)) $(LIBAB)
	@mkdir -p "$$(dir $$@)"
	$$(CC) $$(ALL_LDFLAGS) -o "$$@" $$^ $$(LIBS)
endef
$(foreach w,$(WORKLOADS),$(if $(call w_lib,$(w)),$(eval $(call WORKLOAD_template,$(w)))))
$(foreach w,$(WORKLOADS),$(foreach m,$(call w_mains,$(w)),$(eval $(call PROGRAM_template,$(w),$(m)))))

# Built here, never by the runner, so that runners started side by side do not
# race to compile it.  No $(FEATURES) and no libuv: it defines _DEFAULT_SOURCE
# itself and needs only fork, exec and wait4.
$(LAUNCH): runner/measure/launch.c $(FLAGS_STAMP)
	@mkdir -p "$(dir $@)"
	$(CC) $(STD) $(WARN) $(OPT) $(CFLAGS) $(LDFLAGS) -o "$@" "$<"

# Linked with libuv, as every C program is, so that its start-up includes
# loading it.
$(C_EMPTY): runner/measure/empty.c $(FLAGS_STAMP) | $(DEPS_ENV)
	@mkdir -p "$(dir $@)"
	$(CC) $(STD) $(WARN) $(FEATURES) $(UV_CFLAGS) $(OPT) $(CFLAGS) $(LDFLAGS) -o "$@" "$<" $(UV_LIBS)

# Unit tests may test any workload's pieces: every archive is on the line
# (the linker takes only what a test uses), then again those that workloads
# use (c/<w>/uses), so that an archive's needs come after it: GNU ld reads
# each archive once, in order.  Apple's ld searches every archive until none
# resolves more, and warns "ignoring duplicate libraries" about a repeat: no
# repeat there.
W_USES := $(sort $(foreach w,$(WORKLOADS),$(call w_uses,$(w))))
ifeq ($(UNAME_S),Darwin)
TEST_LIBS_AGAIN =
else
TEST_LIBS_AGAIN = $(W_USES) $(LIBAB)
endif
$(BUILD)/bin/test_%: $(BUILD)/c/tests/test_%.o $(W_LIBS) $(LIBAB)
	@mkdir -p "$(dir $@)"
	$(CC) $(ALL_LDFLAGS) -o "$@" $^ $(TEST_LIBS_AGAIN) $(CMOCKA_LIBS) $(LIBS)

$(BUILD)/bin/micro-%: $(BUILD)/c/micro/%.o $(LIBAB)
	@mkdir -p "$(dir $@)"
	$(CC) $(ALL_LDFLAGS) -o "$@" $^ $(LIBS)

# The micro-benchmarks of c/micro/ beside the same operations in Node and Go, in
# one alternated run (runner/tools/micro.py): the table on stdout and in
# results/<host>/micro-<stamp>/; MICRO_ARGS="--rounds 20 --n 1000000" to change
# them.  Timings, so never part of test.
micro: $(MICRO_BINS) $(BUILD)/bin/go-micro | $(DEPS_ENV)
	"$(PYTHON)" -m runner.tools.micro --bin "$(BUILD)/bin" $(if $(NODE),--node "$(NODE)",) $(MICRO_ARGS)

# Instructions per operation under valgrind at two N, the difference over N
# (runner/tools/counts.py): the table on stdout and in results/<host>/counts-<stamp>/;
# with RUN=<run folder>, the counts of that run's variants go into the folder and
# its REPORT.md is redrawn with them beside the times.
# Counts, not timings: the same on a noisy host.
counts: all | $(DEPS_ENV)
	@if [ -n "$$RUN" ]; then \
	  "$(PYTHON)" -m runner.tools.counts --into "$$RUN" $(COUNTS_ARGS) && "$(PYTHON)" -m runner --render "$$RUN"; \
	else \
	  "$(PYTHON)" -m runner.tools.counts $(COUNTS_ARGS); \
	fi

# A variant against itself in lockstep, many times (runner/tools/aa.py): how often an
# interval excludes 1 where nothing differs, at most 5% on any host; the table
# on stdout and in results/<host>/aa-<stamp>/.  AA_ARGS="--noise" adds an
# on-and-off load on the programs' CPU (runner/measure/load.py).  Timings, so make
# test runs it only small, with --check.
aa: all | $(DEPS_ENV)
	"$(PYTHON)" -m runner.tools.aa $(if $(NODE),--node "$(NODE)",) $(AA_ARGS)

# The host's settings that move timings, and what they should be; nothing is
# changed without TUNE_ARGS=--apply (runner/tools/tune.py).
tune: | $(DEPS_ENV)
	"$(PYTHON)" -m runner.tools.tune $(TUNE_ARGS)

# Go builds are cheap to repeat and go tracks its own dependencies.  The
# output is made absolute in the shell: $(abspath) splits a path with a space.
$(BUILD)/bin/go-%: FORCE | $(DEPS_ENV)
	@mkdir -p "$(dir $@)"
	@out='$@'; case $$out in /*) ;; *) out="$$(pwd)/$$out" ;; esac; \
	  echo "cd go && $(GO) build -o $$out ./cmd/$*"; \
	  cd go && "$(GO)" build -o "$$out" ./cmd/$*

FORCE:

# The seeds' runtimes (issue 24, DESIGN section 11): each from its registry's
# client by package name, checked against runtimes/lock.json; nothing is
# downloaded for a runtime already there.
runtimes: | $(DEPS_ENV)
	"$(PYTHON)" -m runner.measure.runtimes --dir "$(BUILD)/runtimes" install
	"$(PYTHON)" -m runner.measure.runtimes --dir "$(BUILD)/runtimes" build-go --bin "$(BUILD)/bin"

# The seed profile's ladders run each seed's shape on the seed's pinned runtime
# (rung 2, runner/analysis/ladder.py): only those versions, and a failed install is one line
# (the ladder's rung then says the runtime is not installed), not a failed run.
seed-runtimes: | $(DEPS_ENV)
	-"$(PYTHON)" -m runner.measure.runtimes --dir "$(BUILD)/runtimes" install $$("$(PYTHON)" -m runner.analysis.ladder --pins)
	-"$(PYTHON)" -m runner.measure.runtimes --dir "$(BUILD)/runtimes" build-go --bin "$(BUILD)/bin" $$("$(PYTHON)" -m runner.analysis.ladder --pins go)

# The options (a PROFILE the catalog lacks, a bad ARGS) are checked before the build, and
# that a variant is left to run (not all skipped for their OS or for node).
compare: deps
	@"$(PYTHON)" -m runner --profile "$(PROFILE)" $(ARGS) --check
	@$(MAKE) --no-print-directory all
	@if [ "$(PROFILE)" = runtimes ]; then $(MAKE) --no-print-directory runtimes; fi
	@if [ "$(PROFILE)" = seed ]; then $(MAKE) --no-print-directory seed-runtimes; fi
	"$(PYTHON)" -m runner --profile "$(PROFILE)" $(ARGS)

quick: deps
	@"$(PYTHON)" -m runner --profile quick $(ARGS) --check
	@$(MAKE) --no-print-directory all
	"$(PYTHON)" -m runner --profile quick $(ARGS)

# RUN and RESULTS are read from the environment (make exports a variable set
# on its command line), so that any character in a folder name stays as it is.
plots: deps
	@test -n "$$RUN" || { echo "make plots: say which run, e.g. make plots RUN=results/latest" >&2; exit 2; }
	"$(PYTHON)" -m runner --render "$$RUN"

# Cross-host charts from the newest run of every host under results/ (or RESULTS).
hosts: deps
	"$(PYTHON)" -m runner --hosts "$${RESULTS:-results}"

# Each suite is a target; run-tests.sh runs them all and prints the totals last.
# test-macos-link before test-bats, whose tests of it start from its build.
TEST_SUITES = test-c test-fpenv test-aarch64 test-go test-rust test-runner test-macos-link test-bats test-aplus test-asm test-lint
ifeq ($(UNAME_S),Linux)
TEST_SUITES += test-sanitize
TEST_SUITES += test-fuzz
endif

test: deps
	@$(MAKE) --no-print-directory all
	@BUILD="$(BUILD)" sh scripts/run-tests.sh "$(MAKE)" $(TEST_SUITES)

test-c: $(C_TESTS)
	@sh scripts/run-ctests.sh $(C_TESTS)

# The ABI-strict coroutine switch (-DAB_CORO_SAVE_FPENV: the x86_64 MXCSR and
# x87 control word saved per coroutine) is a build of its own: its coroutine
# and async tests, built into $(BUILD)/fpenv so that nothing of the normal
# build is mixed in.
FPENV_TESTS = test_coro test_async
test-fpenv:
	@$(MAKE) --no-print-directory BUILD="$(BUILD)/fpenv" CFLAGS="$(CFLAGS) -DAB_CORO_SAVE_FPENV" \
	  $(patsubst %,"$(BUILD)/fpenv/bin/%",$(FPENV_TESTS)) >/dev/null
	@sh scripts/run-ctests.sh $(patsubst %,"$(BUILD)/fpenv/bin/%",$(FPENV_TESTS))

test-go: | $(DEPS_ENV)
	cd go && "$(GO)" vet ./... && "$(GO)" test -v -count=1 ./...

# The Rust workspace's unit tests (the contract crate's, each workload's),
# offline and --locked as make all builds; skipped with the reason without a
# cargo that can build it.
test-rust: | $(DEPS_ENV)
	@sh scripts/rust-test.sh "$(BUILD)"

test-runner: | $(DEPS_ENV)
	"$(PYTHON)" -m unittest discover -s runner/tests -t . -p 'test_*.py' -v

# The bats files run one a CPU and one more (many tests wait on a program or a
# deadline) when GNU parallel is there (make deps installs it on Debian), the
# tests of a file in their order; each test's time is shown.
BATS_JOBS = $(eval BATS_JOBS := $(shell n=$$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1); \
  parallel --version 2>/dev/null | grep -q 'GNU parallel' && [ "$$n" -gt 1 ] \
  && echo "--jobs $$((n + 1)) --no-parallelize-within-files"))$(BATS_JOBS)
test-bats: | $(DEPS_ENV)
	PYTHON="$(PYTHON)" NODE="$(NODE)" bats --tap --timing $(BATS_JOBS) tests

# The Promises/A+ suite (npm) against the C promise core via a Node-API adapter.
test-aplus: | $(DEPS_ENV)
	@sh tests/aplus/run.sh "$(BUILD)" "$(NODE)"

# The C suite on AArch64 (unit tests, the contract tables over the C variants
# that run each style and backend file): natively on an
# aarch64 host, else cross-built into $(BUILD)/aarch64 and run under
# qemu-aarch64 when the arm64 libraries are installed, else the coroutine
# tests alone; it says which (scripts/test-aarch64.sh).
test-aarch64: | $(DEPS_ENV)
	@sh scripts/test-aarch64.sh "$(MAKE)" "$(BUILD)"

# The coroutine switches assembled for arm64/x86_64 Mach-O and ELF with clang,
# whatever the host: the symbols each object defines, its unwind information,
# the AArch64 branch-protection note; and on x86_64, that the C programs'
# coroutines yield only from their own functions (skips without clang and llvm).
test-asm: c
	@sh scripts/check-asm.sh "$(BUILD)"

# Every C program cross-compiled and linked for macOS (aarch64 and x86_64)
# with zig cc, the Makefile's own rules told UNAME_S=Darwin, against libuv,
# cmocka and llhttp built from pinned sources (make deps fetches them into
# $(BUILD)/macos/deps); each must be a Mach-O executable of its architecture
# with no undefined symbol but libSystem's; the AArch64 switch assembled with
# BTI (scripts/macos-link.sh; skips, saying why, without them).
.PHONY: test-macos-link
test-macos-link: | $(DEPS_ENV)
	@sh scripts/macos-link.sh "$(BUILD)" "$(MAKE)"

# shellcheck over every shell script make test runs, actionlint (built by make
# deps at a pinned version) over .github/workflows, cargo clippy -D warnings
# over rust/ (skips a missing tool).
test-lint: | $(DEPS_ENV)
	@BUILD="$(BUILD)" sh scripts/lint.sh "$(ACTIONLINT)"

# ASan+UBSan (unit tests and the C variants that cover the code), TSan,
# valgrind memcheck (scripts/sanitize.sh says which variants).
test-sanitize: | $(DEPS_ENV)
	@sh scripts/sanitize.sh "$(MAKE)" "$(PYTHON)"

# libFuzzer over the httpchain server's request handling, FUZZ_SECONDS (default
# 5) from the seed corpus in c/httpchain/fuzz/corpus (skips without clang's libFuzzer).
test-fuzz: | $(DEPS_ENV)
	@sh scripts/fuzz.sh "$(BUILD)"

clean:
	rm -rf "$(BUILD)"

-include $(LIB_OBJ:.o=.d) $(wildcard $(BUILD)/c/*/*.d)
