package policy

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bwpolicy/bwpolicy/internal/testnet"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/internal/bounded"
	"github.com/bwpolicy/bwpolicy/internal/hostile"
)

// silentListener accepts connections and never answers; it returns its
// URL.
func silentListener(t *testing.T) string { return testnet.SilentURL(t) }

// evalInput is a policy input the hostile rules are evaluated over (they
// do not read it).
var evalInput = map[string]any{"settings": map[string]any{}, "profile": map[string]any{}, "facts": map[string]any{}, "known": map[string]any{}}

// TestHostileRulesAreBounded: each hostile rule (numbers.range(1, 1e9),
// an array.concat of 5·10⁷, net.cidr_expand of 0.0.0.0/0, a loop of
// 10¹⁰ steps, http.send to a listener that never answers, and the
// variants: strings.replace_n to 10⁹ bytes, graph.reachable over 3·10⁶
// nodes, walk over 3·10⁶ keys, json.unmarshal and yaml.unmarshal of
// 2·10⁷ elements, base64.encode of 240 MB, io.jwt.decode_verify with a
// 50 MB key set) crosses the bound it should, within the bound plus the
// grace period, and the error is a "policy" diagnostic at the rule's
// file and line naming the rule. Without the bounds each ran for tens of
// seconds and died with a Go stack trace (or hung).
func TestHostileRulesAreBounded(t *testing.T) {
	for _, h := range hostile.Rules(silentListener(t)) {
		t.Run(h.Name, func(t *testing.T) {
			t.Parallel() // each bound is mostly a wait, or a child of its own
			// A case that must cross the memory bound gets time enough
			// on a busy machine (the tests share it).
			lim := bounded.Limits{Time: 2 * time.Second, MemoryMiB: hostile.TestMemoryMiB}
			if !h.Time {
				lim.Time = 60 * time.Second
			}
			dir := t.TempDir()
			file := filepath.Join(dir, "hostile.rego")
			if err := os.WriteFile(file, []byte(h.Src), 0o644); err != nil {
				t.Fatal(err)
			}
			eng, err := LoadWith([]string{dir}, Options{Limits: lim, Reach: Reach{Net: h.Net}})
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			start := time.Now()
			_, err = eng.Evaluate(context.Background(), evalInput)
			took := time.Since(start)
			if err == nil {
				t.Fatal("evaluated without crossing a bound")
			}
			ds := ErrorDiags(err)
			var want []string
			if h.Time {
				want = append(want, "time bound ("+lim.Time.String()+"); --eval-timeout")
			}
			if h.Memory {
				want = append(want, fmt.Sprintf("memory bound (%d MiB); --eval-memory", hostile.TestMemoryMiB))
			}
			if len(ds) != 1 || ds[0].Rule != "policy" || ds[0].Pos.File != file || ds[0].Pos.Line != h.Line ||
				!strings.Contains(ds[0].Summary, "rule bwpolicy.custom.hostile."+h.RegoRule) || !containsAny(ds[0].Summary, want) {
				t.Fatalf("diagnostics %v, want one policy error at %s:%d naming rule %s and one of %q", ds, file, h.Line, h.RegoRule, want)
			}
			if took > lim.Time+3*time.Second {
				t.Errorf("took %v", took)
			}
		})
	}
}

// TestReachIsRefusedByDefault: a rule that names http.send,
// net.lookup_ip_addr, a JSON Schema check or opa.runtime is refused at
// its position, naming the builtin and the flag that allows it; with the
// flag it loads.
func TestReachIsRefusedByDefault(t *testing.T) {
	for _, b := range reachBuiltins {
		t.Run(b.name, func(t *testing.T) {
			call := map[string]string{
				"http.send": `http.send({"method": "GET", "url": "http://127.0.0.1:1/"})`, "net.lookup_ip_addr": `net.lookup_ip_addr("example.com")`,
				"json.match_schema": `json.match_schema({}, {})`, "json.verify_schema": `json.verify_schema({})`, "opa.runtime": `opa.runtime()`,
			}[b.name]
			if call == "" {
				t.Fatalf("no call written for %s", b.name)
			}
			src := "package bwpolicy.custom.reach\n\ndeny contains {\"msg\": sprintf(\"%v\", [x])} if {\n\tx := " + call + "\n\tfalse\n}\n"
			dir := t.TempDir()
			file := filepath.Join(dir, "reach.rego")
			if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadWith([]string{dir}, Options{})
			ds := ErrorDiags(err)
			if err == nil || len(ds) != 1 || ds[0].Pos != (diag.Pos{File: file, Line: 4, Col: 7}) ||
				!strings.Contains(ds[0].Summary, b.name) || !strings.Contains(ds[0].Summary, b.flagFor()) {
				t.Fatalf("default: %v, want one error at %s:4:7 naming %s and %s", ds, file, b.name, b.flagFor())
			}
			eng, err := LoadWith([]string{dir}, Options{Reach: Reach{Net: b.net, Env: !b.net}})
			if err != nil {
				t.Fatalf("with %s: %v", b.flagFor(), err)
			}
			eng.Close()
		})
	}
}

// TestRuntimeEnvironment: opa.runtime() sees the process environment
// only with Reach.Env.
func TestRuntimeEnvironment(t *testing.T) {
	t.Setenv("BWPOLICY_TEST_SECRET", "s3cret")
	dir := t.TempDir()
	src := "package bwpolicy.custom.env\n\ndeny contains {\"msg\": opa.runtime().env.BWPOLICY_TEST_SECRET} if true\n"
	if err := os.WriteFile(filepath.Join(dir, "env.rego"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	eng, err := LoadWith([]string{dir}, Options{Reach: Reach{Env: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	all, err := eng.Evaluate(context.Background(), evalInput)
	var vs []Violation
	for _, v := range all {
		if v.Rule == "custom.env" {
			vs = append(vs, v)
		}
	}
	if err != nil || len(vs) != 1 || vs[0].Message != "s3cret" {
		t.Fatalf("%v %+v, want the variable's value", err, vs)
	}
}

// TestNondeterministicBuiltinsAreJudged: every builtin OPA marks
// nondeterministic (the ones that can reach outside the evaluation) is
// either withheld by default (reachBuiltins) or judged harmless; a new
// one in an OPA upgrade fails here until it is judged.
func TestNondeterministicBuiltinsAreJudged(t *testing.T) {
	withheld := map[string]bool{}
	for _, b := range reachBuiltins {
		withheld[b.name] = true
	}
	for _, b := range ast.CapabilitiesForThisVersion().Builtins {
		if b.Nondeterministic && !withheld[b.Name] && !harmlessNondeterministic[b.Name] {
			t.Errorf("builtin %s is nondeterministic and not judged: withhold it (reachBuiltins) or say why it is harmless", b.Name)
		}
	}
	caps := Reach{}.capabilities()
	for _, b := range caps.Builtins {
		if withheld[b.Name] {
			t.Errorf("%s is in the default capabilities", b.Name)
		}
	}
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// TestRuleDirsBudget: the rule files of the --policy directories are
// read under one budget (8 MiB, 1000 files): past it ReadDirs refuses at
// the file that crossed it, positioned, having read no more (300 files
// of 1 MiB took the parent 3.5 GiB and 104 s before); 7 files of
// 1,000,000 bytes are read.
func TestRuleDirsBudget(t *testing.T) {
	for _, c := range hostile.BudgetCases(MaxRuleFiles) {
		t.Run(c.Name, func(t *testing.T) {
			dir := t.TempDir()
			err := c.WriteDir(dir, func(i int) string { return fmt.Sprintf("r%04d.rego", i) },
				func(i int) string { return fmt.Sprintf("package bwpolicy.custom.p%d\n#", i) })
			if err != nil {
				t.Fatal(err)
			}
			got, err := ReadDirs([]string{dir}, true)
			if !c.Over {
				if err != nil || len(got) != c.Files {
					t.Fatalf("read %d files, %v", len(got), err)
				}
				return
			}
			ds := ErrorDiags(err)
			if len(ds) != 1 || ds[0].Pos.Line != 1 || !strings.HasPrefix(ds[0].Pos.File, dir) || !strings.Contains(ds[0].Summary, "bwpolicy reads no more") {
				t.Fatalf("diagnostics %v", ds)
			}
		})
	}
}
