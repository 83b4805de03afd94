package scan

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkScanGit measures the post-command git scan of a project:
// a repository (config and hooks bound read-only) and a tree of
// dirs×files entries, as after a command that changed nothing.
func BenchmarkScanGit(b *testing.B) {
	for _, size := range []struct{ dirs, files int }{{10, 10}, {100, 10}, {1000, 10}, {2000, 50}} {
		b.Run(fmt.Sprintf("%d_entries", size.dirs*(size.files+1)), func(b *testing.B) {
			f := newScanFixtureB(b)
			for d := 0; d < size.dirs; d++ {
				dir := filepath.Join(f.proj, "src", fmt.Sprintf("d%03d", d/50), fmt.Sprintf("e%04d", d))
				if err := os.MkdirAll(dir, 0o755); err != nil {
					b.Fatal(err)
				}
				for i := 0; i < size.files; i++ {
					if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", i)), nil, 0o644); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ResetTimer()
			for b.Loop() {
				if rep := ScanGit(f.inv, f.home, time.Now(), f.led); rep.Stale() {
					b.Fatalf("stale: %+v", rep)
				}
			}
		})
	}
}

// BenchmarkScanGitUserRepos measures the scan of a project holding 100
// repositories the invocation leaves writable, each with the user's own
// code key (core.pager) and hook from before the compile: each is read
// and judged by the ledger, none is set aside.
func BenchmarkScanGitUserRepos(b *testing.B) {
	f := newScanFixtureB(b)
	for i := 0; i < 100; i++ {
		d := filepath.Join(f.proj, "vendor", fmt.Sprintf("r%03d", i), ".git")
		for _, sub := range []string{"objects", "refs", "hooks"} {
			if err := os.MkdirAll(filepath.Join(d, sub), 0o755); err != nil {
				b.Fatal(err)
			}
		}
		mustWrite(b, filepath.Join(d, "HEAD"), "ref: refs/heads/main\n", 0o644)
		mustWrite(b, filepath.Join(d, "config"), "[core]\n\tpager = less -R\n", 0o644)
		mustWrite(b, filepath.Join(d, "hooks", "pre-commit"), "#!/bin/sh\n", 0o755)
	}
	f.led = recordNow(b, f.inv, f.home)
	b.ResetTimer()
	for b.Loop() {
		if rep := ScanGit(f.inv, f.home, time.Now(), f.led); rep.Stale() {
			b.Fatalf("stale: %+v", rep)
		}
	}
}

// fakeGitDir makes d a git directory git accepts (HEAD, refs, objects)
// with a config.
func fakeGitDir(b *testing.B, d string) {
	for _, sub := range []string{"objects", "refs", "hooks"} {
		if err := os.MkdirAll(filepath.Join(d, sub), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	mustWrite(b, filepath.Join(d, "HEAD"), "ref: refs/heads/main\n", 0o644)
	mustWrite(b, filepath.Join(d, "config"), "[core]\n\tbare = false\n", 0o644)
}

// BenchmarkScanGitRepos measures the scan of a project holding 1,000
// plain repositories from before the compile (below MaxGitScanRepos):
// the per-repository cost.
func BenchmarkScanGitRepos(b *testing.B) {
	f := newScanFixtureB(b)
	for i := 0; i < 1000; i++ {
		fakeGitDir(b, filepath.Join(f.proj, "vendor", fmt.Sprintf("r%04d", i), ".git"))
	}
	benchClean(b, f)
}

// BenchmarkScanGitWorktrees measures the scan of a repository with
// 1,000 linked worktrees' git directories (.git/worktrees/NAME) from
// before the compile: each leads back to the common directory.
func BenchmarkScanGitWorktrees(b *testing.B) {
	f := newScanFixtureB(b)
	for i := 0; i < 1000; i++ {
		w := filepath.Join(f.proj, ".git", "worktrees", fmt.Sprintf("w%04d", i))
		mustWrite(b, filepath.Join(w, "HEAD"), "ref: refs/heads/main\n", 0o644)
		mustWrite(b, filepath.Join(w, "commondir"), "../..\n", 0o644)
		mustWrite(b, filepath.Join(w, "gitdir"), "/nonexistent/w/.git\n", 0o644)
	}
	benchClean(b, f)
}

// benchClean measures ScanGit of f as compiled now, which must set
// nothing aside.
func benchClean(b *testing.B, f *scanFixture) {
	f.led = recordNow(b, f.inv, f.home)
	b.ResetTimer()
	for b.Loop() {
		if rep := ScanGit(f.inv, f.home, time.Now(), f.led); rep.Stale() {
			b.Fatalf("stale: %+v", rep)
		}
	}
}

// BenchmarkScanGitPastRepoBound measures the scan after a command made
// 2,000 or 4,000 decoy repositories (HEAD, refs, objects) in a project
// compiled before: the first MaxGitScanRepos are inspected, the others
// set aside whole (one rename each). The decoys are made again, untimed,
// before every scan.
func BenchmarkScanGitPastRepoBound(b *testing.B) {
	for _, decoys := range []int{2000, 4000} {
		b.Run(fmt.Sprintf("%d_decoys", decoys), func(b *testing.B) { benchPastRepoBound(b, decoys) })
	}
}

func benchPastRepoBound(b *testing.B, decoys int) {
	f := newScanFixtureB(b)
	f.led = recordNow(b, f.inv, f.home)
	time.Sleep(50 * time.Millisecond)
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		dir := filepath.Join(f.proj, fmt.Sprintf("run%d", i))
		for j := 0; j < decoys; j++ {
			fakeGitDir(b, filepath.Join(dir, fmt.Sprintf("d%04d", j), ".git"))
		}
		b.StartTimer()
		if rep := ScanGit(f.inv, f.home, time.Now(), f.led); len(rep.SetAside) != decoys-MaxGitScanRepos {
			b.Fatalf("set aside %d, want %d", len(rep.SetAside), decoys-MaxGitScanRepos)
		}
		b.StopTimer()
		os.RemoveAll(dir)
		b.StartTimer()
	}
}

// BenchmarkScanPythonSites measures what the python site check adds to
// the scan: a writable profile home (the sandbox's HOME) whose user site
// directory holds 300 packages with their dist-info, 5 path-only .pth
// files, a __pycache__ of 50 entries and the user's code .pth with the
// module it imports (bound read-only, as the compile binds them), none
// changed since the compile; and the same home without a user site.
func BenchmarkScanPythonSites(b *testing.B) {
	for _, populated := range []bool{false, true} {
		b.Run(fmt.Sprintf("user_site_%v", populated), func(b *testing.B) {
			f := newPyFixture(b)
			if populated {
				site := f.site("python3.11")
				for i := 0; i < 300; i++ {
					mustWrite(b, filepath.Join(site, fmt.Sprintf("pkg%03d", i), "__init__.py"), "", 0o644)
					mustWrite(b, filepath.Join(site, fmt.Sprintf("pkg%03d-1.0.dist-info", i), "RECORD"), "", 0o644)
				}
				for i := 0; i < 5; i++ {
					mustWrite(b, filepath.Join(site, fmt.Sprintf("p%d.pth", i), ""), "/opt/src\n", 0o644)
				}
				for i := 0; i < 50; i++ {
					mustWrite(b, filepath.Join(site, "__pycache__", fmt.Sprintf("m%d.cpython-311.pyc", i)), "", 0o644)
				}
				hook, mod := filepath.Join(site, "distutils-precedence.pth"), filepath.Join(site, "_distutils_hack")
				mustWrite(b, hook, "import os; __import__('_distutils_hack')\n", 0o644)
				mustWrite(b, filepath.Join(mod, "__init__.py"), "", 0o644)
				f.inv.Bwrap.Args = append(f.inv.Bwrap.Args, "--ro-bind", hook, hook, "--ro-bind", mod, mod)
			}
			f.led = recordNow(b, f.inv, f.home)
			b.ResetTimer()
			for b.Loop() {
				s := newGitScan(f.inv, "", time.Now(), f.led)
				s.scanPythonSites(pythonHomes(f.inv, ""), nil)
				if s.rep.Stale() {
					b.Fatalf("stale: %+v", s.rep)
				}
			}
		})
	}
}
