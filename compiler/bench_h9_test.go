package compiler

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/runtime/hostprobe"
)

// BenchmarkCompileDeepRepos measures in-process compilation of a
// working directory on the real file system holding 5,000 directories
// (50×100, a file each) and 20 repositories three levels down: H9's
// search for repositories walks all of it (BENCHMARKS.md).
func BenchmarkCompileDeepRepos(b *testing.B) {
	proj := filepath.Join(b.TempDir(), "proj")
	for d := range 50 {
		for e := range 100 {
			dir := filepath.Join(proj, "src", fmt.Sprintf("d%d", d), fmt.Sprintf("e%d", e))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "f.go"), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	for i := range 20 {
		if out, err := exec.Command("git", "init", "-q", filepath.Join(proj, "src", fmt.Sprintf("d%d", 2*i), fmt.Sprintf("e%d", i), "repo")).CombinedOutput(); err != nil {
			b.Fatalf("git init: %v: %s", err, out)
		}
	}
	host := &facts.Host{FS: facts.OS{}, UID: 1000, Home: filepath.Dir(proj), HermesHome: filepath.Join(filepath.Dir(proj), ".hermes"), ProcessCwd: proj,
		Env: map[string]string{}, Kernel: "6.8.0", HardAS: facts.Unlimited, HardCPU: facts.Unlimited, HardNProc: 60000,
		Arch: "x86_64", Bwrap: hostprobe.BwrapInfo{Path: "/usr/bin/bwrap", Options: map[string]bool{"--disable-userns": true, "--size": true}}}
	req := &Request{File: "bench.yaml", Source: []byte("cwd: " + proj + "\n"), Host: host}
	if res := Compile(context.Background(), req); res.Invocation == nil {
		b.Fatal(res.Diags)
	}
	b.ResetTimer()
	for b.Loop() {
		req.Host = &facts.Host{FS: host.FS, UID: host.UID, Home: host.Home, HermesHome: host.HermesHome, ProcessCwd: proj, Env: host.Env,
			Kernel: host.Kernel, HardAS: host.HardAS, HardCPU: host.HardCPU, HardNProc: host.HardNProc, Arch: host.Arch, Bwrap: host.Bwrap}
		Compile(context.Background(), req)
	}
}
