package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwpolicy/bwpolicy/internal/testnet"

	"github.com/bwpolicy/bwpolicy/internal/hostile"
	"github.com/bwpolicy/bwpolicy/internal/testtree"
	"github.com/bwpolicy/bwpolicy/report"
)

// silentURL is the address of a listener that accepts and never answers.
func silentURL(t *testing.T) string { return testnet.SilentURL(t) }

// shortSkips reports whether a hostile case skips command under -short
// (`make test`): there each hostile rule and profile runs under check
// alone, the command a CI lint runs on other people's files; `make ci`
// runs the same tests without -short, under every command.
func shortSkips(command string) bool { return testing.Short() && command != "check" }

// boundFlags are the bounds the CLI tests use: the memory cases get
// time enough on a busy machine, the time cases a short bound.
func boundFlags(h hostile.Rule) []string {
	timeout := "2s"
	if !h.Time {
		timeout = "60s"
	}
	flags := []string{"--eval-timeout", timeout, "--eval-memory", strconv.Itoa(hostile.TestMemoryMiB)}
	if h.Net {
		flags = append(flags, "--policy-net")
	}
	return flags
}

// wantBound is what the message of a crossed bound says for h.
func wantBound(h hostile.Rule) []string {
	var want []string
	if h.Time {
		want = append(want, "did not finish within the time bound")
	}
	if h.Memory {
		want = append(want, memoryBound)
	}
	return want
}

// memoryBound is the message of the memory bound the tests set, crossed.
var memoryBound = fmt.Sprintf("used more than the memory bound (%d MiB)", hostile.TestMemoryMiB)

func hasAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// hostileSlots bounds how many hostile cases run at once. Each is a
// bwpolicy and a child at its memory bound; all of them side by side
// (nineteen under -short, more under make ci) starve a 2-core machine
// so that loading the rules alone outlasts a 2 s bound, or the
// collector lags and parsing a profile crosses 64 MiB before any field
// is evaluated: a bound crossed where the case does not put it. Four at
// once keep the waits overlapped.
var hostileSlots = make(chan struct{}, 4)

// hostileSlot takes a slot for the rest of t.
func hostileSlot(t *testing.T) {
	hostileSlots <- struct{}{}
	t.Cleanup(func() { <-hostileSlots })
}

// TestHostileRulesUnderEveryCommand: each hostile organisation rule
// (numbers.range(1, 1e9), array.concat of 5·10⁷, net.cidr_expand of
// 0.0.0.0/0, a loop of 10¹⁰ steps, http.send to a silent listener) is
// a clean error naming the rule file, line and rule, with no Go stack
// trace, under compile, compile --explain, run (exit 125, run's own
// code for a refusal) and check (exit 2); under test, the same rule
// called from a test. The variants (other builtins of the same classes:
// strings.replace_n, graph.reachable, walk, json and yaml.unmarshal,
// base64.encode, io.jwt.decode_verify) run under check alone. Before, these ran 13-29 s and died with "runtime:
// out of memory" and a stack trace (exit 2, no file, no line).
func TestHostileRulesUnderEveryCommand(t *testing.T) {
	t.Parallel() // runs bwpolicy in its own directories: side by side with the other slow tests
	url := silentURL(t)
	env := sandboxEnv(t)
	for _, h := range hostile.Rules(url) {
		t.Run(h.Name, func(t *testing.T) {
			t.Parallel() // each bound is mostly a wait: the rules run side by side
			hostileSlot(t)
			dir := testtree.Write(t, map[string]string{
				"policy/hostile.rego":     h.Src,
				"tests/hostile.rego":      h.Src,
				"tests/hostile_test.rego": "package bwpolicy.custom.hostile_test\n\nimport data.bwpolicy.custom.hostile\n\ntest_never if {\n\tcount(hostile.deny) == 0\n}\n",
				"settings/sandbox.yaml":   "profile: workspace\n",
			})
			where := fmt.Sprintf("policy/hostile.rego:%d:", h.Line)
			for _, c := range []struct {
				name string
				args []string
				code int
			}{
				{"compile", []string{"compile", "--config", "settings/sandbox.yaml", "--policy", "policy"}, 2},
				{"explain", []string{"compile", "--explain", "--config", "settings/sandbox.yaml", "--policy", "policy"}, 2},
				{"run", []string{"run", "--config", "settings/sandbox.yaml", "--policy", "policy", "--", "true"}, 125},
				{"check", []string{"check", "--policy", "policy", "settings"}, 2},
				{"test", []string{"test", "tests"}, 2},
			} {
				if (h.Variant && c.name != "check") || shortSkips(c.name) {
					continue
				}
				args := append(append([]string{}, c.args[:1]...), boundFlags(h)...)
				if c.name == "test" {
					args = []string{"test", "--timeout", strings.TrimSuffix(boundFlags(h)[1], "")}
					args = append(args, boundFlags(h)[2:]...)
				}
				args = append(args, c.args[1:]...)
				start := time.Now()
				r := run(t, dir, env, args...)
				took := time.Since(start)
				w := where
				if c.name == "test" {
					w = fmt.Sprintf("tests/hostile.rego:%d:", h.Line)
				}
				want := wantBound(h)
				if c.name == "test" {
					// test records each test's trace (to say where a
					// failing test stopped): a long loop fills memory
					// too, whichever bound comes first.
					want = append(want, memoryBound)
				}
				if r.code != c.code || !strings.Contains(r.stderr, w) || !hasAny(r.stderr, want) ||
					!strings.Contains(r.stderr, "bwpolicy.custom.hostile.deny") || strings.Contains(r.stderr, "goroutine ") {
					t.Errorf("%s: want exit %d and the bound at %s (rule deny), no stack trace; got %s", c.name, c.code, w, r)
				}
				if c.name == "test" && strings.Contains(r.stderr, "--eval-timeout") {
					t.Errorf("test names check's flag (--eval-timeout), not its own (--timeout): %s", r)
				}
				if h.Time && took > 10*time.Second {
					t.Errorf("%s took %v with a 2 s bound", c.name, took)
				}
			}
		})
	}
}

// TestHostileRuleIsOneFindingInEveryFormat: under check, a crossed bound
// is one failure in every output format, and each still parses (SARIF
// and GitLab reports reach the CI's parsers).
func TestHostileRuleIsOneFindingInEveryFormat(t *testing.T) {
	t.Parallel()                        // runs bwpolicy in its own directories: side by side with the other slow tests
	h := hostile.Rules(silentURL(t))[0] // numbers.range(1, 1e9)
	env := sandboxEnv(t)
	dir := testtree.Write(t, map[string]string{
		"policy/hostile.rego": h.Src,
		"settings/a.yaml":     "profile: workspace\n",
		"settings/b.yaml":     "profile: restricted\n",
	})
	for _, f := range report.Formats() {
		t.Run(f, func(t *testing.T) {
			args := append([]string{"check", "--format", f}, boundFlags(h)...)
			r := run(t, dir, env, append(args, "--policy", "policy", "settings")...)
			if r.code != 2 || strings.Contains(r.stderr, "goroutine ") {
				t.Fatalf("want exit 2 without a stack trace: %s", r)
			}
			out, mark := r.stdout, "--eval-memory sets it"
			switch f {
			case "text":
				out = r.stdout + r.stderr // the failure goes to standard error
			case "junit":
				mark = "<error " // the message is both an attribute and the body
			}
			if n := strings.Count(out, mark); n != 1 {
				t.Errorf("the crossed bound appears %d times in the %s report, want once:\n%s", n, f, out)
			}
			switch f {
			case "json", "sarif", "gitlab":
				if !json.Valid([]byte(out)) {
					t.Errorf("%s report does not parse:\n%s", f, out)
				}
			case "junit":
				if err := xml.Unmarshal([]byte(out), new(struct{})); err != nil {
					t.Errorf("junit: %v", err)
				}
			}
			if f == "sarif" && !strings.Contains(out, `"executionSuccessful": false`) {
				t.Errorf("sarif: the run is not marked unsuccessful:\n%s", out)
			}
		})
	}
}

// TestCheckConcurrentIsSequential: check --jobs 1 and --jobs 4 write the
// same report, byte for byte, in every format (-short: text and SARIF;
// make ci runs all) (findings, failures and
// suppressions of 150 varied files (many more than jobs: the order of
// completion varies), some with organisation-rule
// findings, some with inline suppressions).
func TestCheckConcurrentIsSequential(t *testing.T) {
	t.Parallel() // runs bwpolicy in its own directories: side by side with the other slow tests
	const n = 150
	dir := writeManySettings(t, n)
	for i := 0; i < n; i += 13 {
		f := filepath.Join(dir, fmt.Sprintf("s%04d.yaml", i))
		src, _ := os.ReadFile(f)
		if err := os.WriteFile(f, append(src, []byte("binds:\n  - src: relative/x # bwpolicy:ignore R9 test\n")...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := sandboxEnv(t)
	for _, f := range report.Formats() {
		if testing.Short() && f != "text" && f != "sarif" {
			continue // make ci (LONG_TESTS) runs every format
		}
		t.Run(f, func(t *testing.T) {
			var outs [2]result
			for i, jobs := range []string{"1", "4"} {
				outs[i] = run(t, dir, env, "check", "--format", f, "--jobs", jobs, "--policy", "policy", ".")
			}
			if outs[0].code != 1 || outs[1].code != outs[0].code {
				t.Fatalf("exit %d and %d, want 1:\n%s\n%s", outs[0].code, outs[1].code, outs[0], outs[1])
			}
			if !bytes.Equal([]byte(outs[0].stdout), []byte(outs[1].stdout)) || outs[0].stderr != outs[1].stderr {
				t.Errorf("--jobs 4 differs from --jobs 1")
			}
			if len(outs[0].stdout) < 1000 {
				t.Errorf("a report of %d bytes for %d files", len(outs[0].stdout), n)
			}
		})
	}
}

// TestHostileProfilesUnderEveryCommand: the hostile custom profiles
// (list.Range(0, 1e8, 1) in a comprehension, a 60,000-field struct, a
// string and a list doubled, a comprehension three levels deep) are a
// clean failure at the profile's file under compile (exit 2), compile
// --explain, run (125) and check (exit 2, one failure); the 4.9 MB
// struct is refused by its size, at line 1, and the struct nested
// 20,000 deep by CUE, at its line, each as a finding (exit 1). The
// variants (all but the first three) run under check alone.
func TestHostileProfilesUnderEveryCommand(t *testing.T) {
	t.Parallel() // runs bwpolicy in its own directories: side by side with the other slow tests
	env := sandboxEnv(t)
	for _, h := range hostile.Profiles() {
		t.Run(h.Name, func(t *testing.T) {
			t.Parallel() // each bound is mostly a wait: the profiles run side by side
			hostileSlot(t)
			dir := testtree.Write(t, map[string]string{
				"profiles/" + h.Name + ".cue": string(h.Src),
				"settings/sandbox.yaml":       "profile: workspace\n",
			})
			timeout := "2s"
			if !h.Time {
				timeout = "60s"
			}
			bounds := []string{"--eval-timeout", timeout, "--eval-memory", strconv.Itoa(h.Bound())}
			crossed := h.Time || h.Memory
			for _, c := range []struct {
				name       string
				args       []string
				code, size int
			}{
				{"compile", []string{"compile", "--config", "settings/sandbox.yaml", "--profiles", "profiles"}, 2, 1},
				{"explain", []string{"compile", "--explain", "--config", "settings/sandbox.yaml", "--profiles", "profiles"}, 2, 1},
				{"run", []string{"run", "--config", "settings/sandbox.yaml", "--profiles", "profiles", "--", "true"}, 125, 125},
				{"check", []string{"check", "--profiles", "profiles", "settings"}, 2, 1},
			} {
				if (h.Variant && c.name != "check") || shortSkips(c.name) {
					continue
				}
				args := append(append(append([]string{}, c.args[0]), bounds...), c.args[1:]...)
				r := run(t, dir, env, args...)
				want, at := c.code, "profiles/"+h.Name+".cue:"
				msg := "did not finish within the time bound (2s)"
				if h.Memory {
					msg = fmt.Sprintf("the memory bound (%d MiB)", h.Bound())
				}
				if h.Time && h.Memory {
					msg = "bound"
				}
				if !crossed {
					want, at, msg = c.size, fmt.Sprintf("profiles/%s.cue:%d:", h.Name, h.Line), h.Refusal
				}
				field := "" // the field whose evaluation crossed the bound
				if crossed {
					field = "(field "
				}
				if r.code != want || !strings.Contains(r.stderr+r.stdout, at) || !strings.Contains(r.stderr+r.stdout, msg) || !strings.Contains(r.stderr+r.stdout, field) || strings.Contains(r.stderr, "goroutine ") {
					t.Errorf("%s: want exit %d and %q at %s, no stack trace; got %s", c.name, want, msg, at, r)
				}
			}
		})
	}
}
