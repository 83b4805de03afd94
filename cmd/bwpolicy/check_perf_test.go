package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// perfFiles is how many settings files the performance check uses.
const perfFiles = 1000

// writeManySettings writes n varied settings files (standalone and
// Hermes forms, binds, limits, some with errors) into a new directory.
func writeManySettings(t testing.TB, n int) string {
	dir := t.TempDir()
	for i := 0; i < n; i++ {
		var src string
		switch i % 5 {
		case 0:
			src = fmt.Sprintf("profile: workspace\nmemory_mb: %d\ncpu_seconds: 60\n", 256+i)
		case 1:
			src = "profile: restricted\nbinds:\n  - src: /usr/share\n  - src: /etc\n    dest: /tmp/etc\n"
		case 2:
			src = fmt.Sprintf("terminal:\n  home_mode: auto\nplugins:\n  entries:\n    bubblewrap:\n      settings:\n        profile: network\n        max_procs: %d\n", i%200)
		case 3:
			src = fmt.Sprintf("profile: workspace\nmemory_mb: %d\n", 4096+i) // over the organisation's cap
		case 4:
			src = "profile: workspace\nbinds:\n  - src: relative/path\n" // R9
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%04d.yaml", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "policy"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "policy", "limits.rego"), []byte(limitsRego), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestCheckThousandFiles: one `bwpolicy check` call over 1,000 settings
// files (with an organisation rule) takes at most 8 s of CPU, process
// start-up included: the rules are compiled and the query prepared once,
// and each host path is read once (facts.Memo), not once per file. The
// bound is on the CPU time the process used (user + system), which other
// work on a shared machine inflates far less than the wall time. Measured
// side by side on 2 vCPUs (M3 in BENCHMARKS.md's history): 3.7–5.4 s
// (median 3.8); before the host was memoised 7.2–7.8 s, which a slower CI
// machine pushed to 8.3 s. A rule compiled or the host read per file
// would cost about twice the bound. The wall time is logged.
func TestCheckThousandFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	dir := writeManySettings(t, perfFiles)
	cmd := exec.Command(bwpolicyBin, "check", "--format", "json", "--policy", "policy", ".")
	cmd.Dir, cmd.Env = dir, sandboxEnv(t)
	var out bytes.Buffer
	cmd.Stdout = &out
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("%v, want exit 1 (some files have errors)", err)
	}
	if diags := checkJSON[map[string]any](t, out.Bytes()); len(diags) < perfFiles/5*2 {
		t.Fatalf("%d diagnostics, want at least %d", len(diags), perfFiles/5*2)
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	t.Logf("bwpolicy check of %d files: %v wall, %v CPU", perfFiles, wall.Round(time.Millisecond), cpu.Round(time.Millisecond))
	if cpu > 8*time.Second {
		t.Errorf("checking %d files used %v of CPU, want at most 8 s", perfFiles, cpu)
	}
	if wall > 5*time.Second {
		t.Logf("the wall time exceeded 5 s while the CPU time did not: the machine was busy")
	}
}

// BenchmarkCheckThousandFiles times one check call over 1,000 files.
func BenchmarkCheckThousandFiles(b *testing.B) {
	dir := writeManySettings(b, perfFiles)
	env := sandboxEnv(b)
	for i := 0; i < b.N; i++ {
		r := run(b, dir, env, "check", "--format", "json", "--policy", "policy", ".")
		if r.code != 1 {
			b.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
	}
}
