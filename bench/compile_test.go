// Package bench holds bwpolicy's benchmarks against the field (run.sh,
// see BENCHMARKS.md) and the Go benchmarks that show how compilation
// grows with the settings: binds alone, hide entries alone, both.
//
//	go test -run '^$' -bench . -benchtime 2s ./bench
//
// Unlike compiler.BenchmarkCompile (a synthetic factstest.Tree), these
// compile against a real directory tree made in a temporary directory,
// through facts.OS, as `bwpolicy compile` does: the per-path cost
// includes the real lstat/readdir calls, and no cost of the synthetic
// tree's own lookups (which scan the whole map) is mistaken for the
// compiler's.
package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/profiler"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/bwpolicy/bwpolicy/compiler"
	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/policy"
	"github.com/bwpolicy/bwpolicy/profile"
	"github.com/bwpolicy/bwpolicy/runtime/hostprobe"
)

// Sizes are the numbers of binds / hide entries each series compiles.
var Sizes = []int{0, 10, 100}

// fixture is a home directory with every credential entry, a project
// with nHide subdirectories holding a key each, and nBinds data
// directories.
type fixture struct {
	root, home, proj string
}

func newFixture(tb testing.TB, nBinds, nHide int) fixture {
	tb.Helper()
	root := tb.TempDir()
	f := fixture{root: root, home: filepath.Join(root, "home", "u")}
	f.proj = filepath.Join(f.home, "proj")
	mk := func(p string) {
		if err := os.MkdirAll(p, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	touch := func(p string) {
		mk(filepath.Dir(p))
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	for _, d := range []string{".ssh", ".aws", ".gnupg", ".config/gcloud", ".docker", ".kube", ".hermes/cache/scratch", "proj"} {
		mk(filepath.Join(f.home, d))
	}
	for _, p := range []string{".npmrc", ".netrc", ".env"} {
		touch(filepath.Join(f.home, p))
	}
	for i := 0; i < nBinds; i++ {
		mk(filepath.Join(root, "data", fmt.Sprintf("d%d", i)))
	}
	for i := 0; i < nHide; i++ {
		touch(filepath.Join(f.proj, fmt.Sprintf("s%d", i), fmt.Sprintf("key%d.pem", i)))
		touch(filepath.Join(f.proj, fmt.Sprintf("s%d", i), "main.go"))
	}
	return f
}

// settingsRW is settings with the binds read-write when rw is set.
func (f fixture) settingsRW(prof string, nBinds, nHide int, rw bool) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "profile: %s\nbinds:\n", prof)
	if nBinds == 0 {
		b.WriteString("  []\n")
	}
	for i := 0; i < nBinds; i++ {
		fmt.Fprintf(&b, "  - {src: %s/data/d%d, readonly: %v}\n", f.root, i, !rw)
	}
	b.WriteString("hide:\n")
	if nHide == 0 {
		b.WriteString("  []\n")
	}
	for i := 0; i < nHide; i++ {
		fmt.Fprintf(&b, "  - s%d/*.pem\n", i)
	}
	return []byte(b.String())
}

func (f fixture) host() *facts.Host {
	return &facts.Host{FS: facts.OS{}, UID: 1000, Home: f.home, HermesHome: filepath.Join(f.home, ".hermes"), ProcessCwd: f.proj,
		Env: map[string]string{}, Kernel: "6.8.0", HardAS: facts.Unlimited, HardCPU: facts.Unlimited, HardNProc: 60000,
		Arch: "x86_64", Bwrap: hostprobe.BwrapInfo{Path: "/usr/bin/bwrap", Options: map[string]bool{"--disable-userns": true, "--size": true}}}
}

func requestRW(tb testing.TB, prof string, nBinds, nHide int, rw bool) *compiler.Request {
	tb.Helper()
	f := newFixture(tb, nBinds, nHide)
	req := &compiler.Request{File: "bench.yaml", Source: f.settingsRW(prof, nBinds, nHide, rw), Host: f.host()}
	res := compiler.Compile(context.Background(), req)
	if res.Invocation == nil || res.Diags.HasErrors() {
		tb.Fatalf("compile: %v", res.Diags)
	}
	if got := len(res.Invocation.Hidden); got < nHide {
		tb.Fatalf("%d hidden paths, want at least %d", got, nHide)
	}
	return req
}

func prepare(tb testing.TB) {
	tb.Helper()
	if _, ds := profile.Builtin(); ds.HasErrors() {
		tb.Fatal(ds)
	}
	if _, err := policy.Builtin(); err != nil {
		tb.Fatal(err)
	}
}

// series are the ways the settings grow: read-only binds, read-write
// binds (rule R3 compares each with the writable directories), hide
// entries, read-only binds and hide entries together.
var series = []struct {
	name  string
	rw    bool
	sizes func(n int) (binds, hide int)
}{
	{"binds", false, func(n int) (int, int) { return n, 0 }},
	{"rwbinds", true, func(n int) (int, int) { return n, 0 }},
	{"hide", false, func(n int) (int, int) { return 0, n }},
	{"both", false, func(n int) (int, int) { return n, n }},
}

// BenchmarkCompileGrowth compiles (in process, after the one-time CUE
// and Rego preparation) the workspace profile with N binds, N hide
// entries, or both.
func BenchmarkCompileGrowth(b *testing.B) {
	prepare(b)
	for _, s := range series {
		for _, n := range Sizes {
			b.Run(fmt.Sprintf("%s/%d", s.name, n), func(b *testing.B) {
				nb, nh := s.sizes(n)
				req := requestRW(b, "workspace", nb, nh, s.rw)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					compiler.Compile(context.Background(), req)
				}
			})
		}
	}
}

// policyInput rebuilds the policy stage's input ({settings, profile,
// facts}, the settings with the profile's defaults merged in) from a
// compile result.
func policyInput(tb testing.TB, res *compiler.Result) map[string]any {
	tb.Helper()
	raw, err := json.Marshal(res.Settings)
	if err != nil {
		tb.Fatal(err)
	}
	s := map[string]any{}
	if err := json.Unmarshal(raw, &s); err != nil {
		tb.Fatal(err)
	}
	s["profile"] = res.Profile.Name
	s["memory_mb"] = res.Profile.Defaults.MemoryMB
	s["cpu_seconds"] = res.Profile.Defaults.CPUSeconds
	s["max_procs"] = res.Profile.Defaults.MaxProcs
	if _, ok := s["binds"]; !ok {
		s["binds"] = []any{}
	}
	return map[string]any{"settings": s, "profile": res.Profile, "facts": res.Facts}
}

// BenchmarkPolicyGrowth evaluates the built-in Rego rules alone over the
// same inputs as BenchmarkCompileGrowth.
func BenchmarkPolicyGrowth(b *testing.B) {
	prepare(b)
	eng, _ := policy.Builtin()
	for _, s := range series {
		for _, n := range Sizes {
			b.Run(fmt.Sprintf("%s/%d", s.name, n), func(b *testing.B) {
				nb, nh := s.sizes(n)
				res := compiler.Compile(context.Background(), requestRW(b, "workspace", nb, nh, s.rw))
				in := policyInput(b, res)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := eng.Evaluate(context.Background(), in); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestRegoProfile prints the Rego expressions that take the most time
// for the workspace profile with size N of one of the series (default
// both), using OPA's profiler:
//
//	BWPOLICY_REGO_PROFILE=N [BWPOLICY_REGO_SERIES=rwbinds] go test -run RegoProfile -v ./bench
func TestRegoProfile(t *testing.T) {
	nStr := os.Getenv("BWPOLICY_REGO_PROFILE")
	if nStr == "" {
		t.Skip("set BWPOLICY_REGO_PROFILE=N (and BWPOLICY_REGO_SERIES) to profile the rules")
	}
	var n int
	if _, err := fmt.Sscan(nStr, &n); err != nil {
		t.Fatal(err)
	}
	name := os.Getenv("BWPOLICY_REGO_SERIES")
	if name == "" {
		name = "both"
	}
	var req *compiler.Request
	for _, s := range series {
		if s.name == name {
			nb, nh := s.sizes(n)
			req = requestRW(t, "workspace", nb, nh, s.rw)
		}
	}
	if req == nil {
		t.Fatalf("BWPOLICY_REGO_SERIES=%s: no such series", name)
	}
	prepare(t)
	res := compiler.Compile(context.Background(), req)
	in := policyInput(t, res)
	opts := []func(*rego.Rego){rego.Query("data.bwpolicy.main.result")}
	mods := policy.BuiltinModules(false)
	names := make([]string, 0, len(mods))
	for k := range mods {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		opts = append(opts, rego.Module(k, mods[k]))
	}
	pq, err := rego.New(opts...).PrepareForEval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(in)
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		t.Fatal(err)
	}
	prof := profiler.New()
	if _, err := pq.Eval(context.Background(), rego.EvalInput(generic), rego.EvalQueryTracer(prof)); err != nil {
		t.Fatal(err)
	}
	for _, st := range prof.ReportTopNResults(25, []string{"total_time_ns", "num_eval", "num_redo", "file", "line"}) {
		t.Logf("%8.2f ms  eval %7d  redo %7d  %s:%d  %s", float64(st.ExprTimeNs)/1e6, st.NumEval, st.NumRedo,
			st.Location.File, st.Location.Row, strings.TrimSpace(firstLine(string(st.Location.Text))))
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
