# bwpolicy: `make setup` once (root, Debian bookworm), then `make test`.

export PATH := $(PATH):/usr/local/go/bin

GO          ?= go
SYSTEM_BWRAP = /usr/bin/bwrap
BWRAP_0_12   = $(CURDIR)/.cache/bwrap-0.12.0/bwrap
# The packages whose tests run real sandboxes: run again on bwrap 0.12.0.
SANDBOX_PKGS = ./sandboxtest/... ./runtime/... ./seccomp/...
# Fuzz budgets are counts of executions, not durations: Go 1.26's fuzz
# coordinator can fail a duration-bounded run with a bare "context deadline
# exceeded" at the deadline (go.dev/issue/75804, fixed in Go 1.27), seen
# here on a loaded machine. `make test` fuzzes briefly (~2 s each on an
# idle 2-vCPU VM); `make ci` fuzzes ~20 s and ~30 s.
FUZZ_SHORT_EXECS   ?= 3000x
FUZZ_COMPILE_EXECS ?= 30000x
FUZZ_VERIFY_EXECS  ?= 30000x
# What `make test` runs with -short leaves out, and `make ci` runs: the
# hostile rules and profiles under every command but check, the
# 1,000-file check timing, the binary's check of the corpus in every
# format but SARIF, check against whole compilations with the built-in
# rules alone (make test compares them with organisation rules and custom
# profiles, and compiler's TestLintReportsWhatCompileReports holds the
# built-in rules' findings to Compile's on every golden case), the
# concurrent check in the formats but text and SARIF, and the two tests
# that run the documentation's CI set-ups (the GitHub Action's steps,
# docs/ci.md's GitHub, GitLab and pre-commit command lines).
LONG_TESTS = TestHostile|TestCheckThousandFiles|TestCheckCorpusConcurrentIsSequential|TestCheckIsTheCompilePath|TestCheckConcurrentIsSequential|TestAction|TestCIExamples
STATICCHECK ?= $(shell $(GO) env GOPATH)/bin/staticcheck
# The Hermes plugin's tests (Debian's python3-pytest); pytest exits 5 when
# it collects nothing, which fails the target too.
PYTEST       = /usr/bin/python3 -m pytest -q -p no:cacheprovider

.PHONY: setup test test-main test-side ci lint test-hermes build demo

setup:
	.ci/setup.sh

# The test command (<= 5 minutes on 2 cores): static checks, every package
# with the system bwrap (0.8.0 on bookworm; the sandbox scenarios as the
# unprivileged user, the way agents run them), the Hermes plugin's tests,
# and a short fuzzing run of each fuzz target.
#
# Two lines of work at once (test-main, test-side), since much of the
# first waits (sandboxes, timeouts) rather than computes:
# - test-main: go vet (it compiles every package's dependencies, which go
#   test then finds in the build cache), go test -short (-vet=off: the
#   whole go vet ran just before, a superset of go test's vet checks),
#   then the plugin's end-to-end tests (real sandboxes as bwtest: after go
#   test, not beside its sandbox scenarios, which run as bwtest too).
# - test-side: the plugin's other tests (fakes, no sandbox), then at the
#   lowest CPU priority, on the CPU that the waiting above leaves free,
#   the fuzzing's build (every package again, instrumented: the largest
#   compile of the command) and staticcheck (after it, by when go vet's
#   compile has left the export data staticcheck reads in the build
#   cache), then the fuzzing itself at normal priority (a fuzz worker
#   that an input holds 10 s is reported as deadlocked; test-side's
#   timed steps do not run starved).
# go test starts once go vet has filled the build cache, so no package is
# compiled twice the same way.
test:
	@test -x "$(SYSTEM_BWRAP)" || { echo "error: $(SYSTEM_BWRAP) not found; run 'make setup'" >&2; exit 1; }
	@/usr/bin/python3 -c 'import pytest' 2>/dev/null || { echo "error: python3-pytest missing; run 'make setup'" >&2; exit 1; }
	@test -x "$(STATICCHECK)" || { echo "error: staticcheck not found; run 'make setup'" >&2; exit 1; }
	$(MAKE) --no-print-directory -j2 --output-sync=line test-main test-side

test-main:
	$(GO) vet ./...
	BWPOLICY_BWRAP=$(SYSTEM_BWRAP) BWPOLICY_SANDBOX_IDENTITIES=user $(GO) test -short -vet=off -count=1 ./...
	$(PYTEST) integrations/hermes/tests/test_e2e.py

test-side:
	$(PYTEST) --ignore=integrations/hermes/tests/test_e2e.py integrations/hermes/tests
	nice -n 19 $(GO) test -c -o /dev/null -fuzz FuzzCompile ./compiler
	nice -n 19 $(STATICCHECK) ./...
	$(GO) test -run XXX -fuzz FuzzCompile -fuzztime $(FUZZ_SHORT_EXECS) ./compiler
	$(GO) test -run XXX -fuzz FuzzVerify -fuzztime $(FUZZ_SHORT_EXECS) ./compiler

# What CI adds after `make test`: the sandbox scenarios as root with the
# system bwrap, the real-sandbox packages again with bwrap 0.12.0 (it
# resolves mount destinations differently; both identities; one package
# at a time, so no package's test mounts change the host's mount table
# while another's bwrap copies it), the tests -short leaves out
# (LONG_TESTS), and longer fuzzing.
ci:
	@test -x "$(BWRAP_0_12)" || { echo "error: $(BWRAP_0_12) not found; run 'make setup'" >&2; exit 1; }
	BWPOLICY_BWRAP=$(SYSTEM_BWRAP) BWPOLICY_SANDBOX_IDENTITIES=root $(GO) test -count=1 -run TestSandbox ./sandboxtest
	BWPOLICY_BWRAP=$(SYSTEM_BWRAP) $(GO) test -count=1 -run '$(LONG_TESTS)' ./cmd/bwpolicy
	BWPOLICY_BWRAP=$(BWRAP_0_12) $(GO) test -count=1 -p 1 $(SANDBOX_PKGS)
	$(GO) test -run XXX -fuzz FuzzCompile -fuzztime $(FUZZ_COMPILE_EXECS) ./compiler
	$(GO) test -run XXX -fuzz FuzzVerify -fuzztime $(FUZZ_VERIFY_EXECS) ./compiler

# go vet and staticcheck (installed by `make setup`), both clean.
lint:
	$(GO) vet ./...
	@test -x "$(STATICCHECK)" || { echo "error: staticcheck not found; run 'make setup'" >&2; exit 1; }
	$(STATICCHECK) ./...

build:
	$(GO) build -o bin/ ./cmd/...

# The Hermes plugin (integrations/hermes): unit tests against fakes, then
# end-to-end tests in real sandboxes (run as the unprivileged bwtest when
# started as root).
test-hermes:
	@/usr/bin/python3 -c 'import pytest' 2>/dev/null || { echo "error: python3-pytest missing; run 'make setup'" >&2; exit 1; }
	$(PYTEST) integrations/hermes/tests

# The main job on the embedded defaults: the explained sandbox plan.
demo:
	$(GO) run ./cmd/bwpolicy compile --explain
