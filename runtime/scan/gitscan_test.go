package scan

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bwpolicy/bwpolicy/hazard/git"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/runtime/ledger"
)

// gitEnv is a host git that reads no global or system configuration.
func gitEnv(home string) []string {
	env := []string{"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "PATH=/usr/bin:/bin", "LC_ALL=C",
		"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b"}
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); g != "" { // a test that sets it (t.Setenv)
		env = append(env, "GIT_CONFIG_GLOBAL="+g)
	}
	return env
}

func runGit(t testing.TB, home, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, gitEnv(home)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
	}
	return string(out)
}

func mustWrite(t testing.TB, p, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// scanFixture is a writable project (with a repository whose config and
// hooks the invocation binds read-only, as the compiler does) and the
// invocation around it.
type scanFixture struct {
	home, proj, marker string
	inv                *invocation.Invocation
	led                *ledger.Ledger // nil until compiledNow: everything is the command's
	t                  testing.TB
}

func newScanFixture(t *testing.T) *scanFixture { return newScanFixtureB(t) }

func newScanFixtureB(t testing.TB) *scanFixture {
	base := t.TempDir()
	f := &scanFixture{home: filepath.Join(base, "home"), proj: filepath.Join(base, "home", "proj"),
		marker: filepath.Join(base, "ran"), t: t}
	if err := os.MkdirAll(f.proj, 0o755); err != nil {
		t.Fatal(err)
	}
	runGit(t, f.home, f.proj, "init", "-q")
	mustWrite(t, filepath.Join(f.proj, "README"), "x\n", 0o644)
	runGit(t, f.home, f.proj, "add", "README")
	runGit(t, f.home, f.proj, "commit", "-qm", "init")
	f.inv = &invocation.Invocation{Bwrap: invocation.Bwrap{Args: []string{"--ro-bind", "/", "/",
		"--bind", f.proj, f.proj,
		"--bind", f.proj + "/.git", f.proj + "/.git",
		"--ro-bind", f.proj + "/.git/config", f.proj + "/.git/config",
		"--ro-bind", f.proj + "/.git/hooks", f.proj + "/.git/hooks"}}}
	return f
}

func (f *scanFixture) scan(t *testing.T) GitScanReport {
	t.Helper()
	return ScanGit(f.inv, f.home, time.Now(), f.led)
}

// evil is a command line that leaves the marker behind.
func (f *scanFixture) evil() string { return "touch " + f.marker }

// hostGitRuns runs real host git commands in dir and reports whether a
// planted program ran.
func (f *scanFixture) hostGitRuns(t *testing.T, dir string) bool {
	t.Helper()
	os.Remove(f.marker)
	for _, args := range [][]string{{"status"}, {"diff"}, {"-c", "core.pager=cat", "log", "-1"},
		{"commit", "-q", "--allow-empty", "-m", "x"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, gitEnv(f.home)
		cmd.CombinedOutput()
	}
	_, err := os.Stat(f.marker)
	return err == nil
}

func wantSetAside(t *testing.T, rep GitScanReport, paths ...string) {
	t.Helper()
	got := map[string]bool{}
	for _, s := range rep.SetAside {
		got[s.Path] = true
		if _, err := os.Lstat(s.As); err != nil {
			t.Errorf("%s was not set aside as %s: %v", s.Path, s.As, err)
		}
		if !strings.Contains(s.As, setAsideSuffix) {
			t.Errorf("set-aside name %s lacks the suffix", s.As)
		}
	}
	for _, p := range paths {
		if !got[p] {
			t.Errorf("%s not set aside; report: %+v", p, rep)
		}
	}
	if len(paths) > 0 && !rep.Stale() {
		t.Error("a finding did not make the invocation stale")
	}
}

// attack plants something, checks that host git runs it without the
// scan (the control), undoes nothing, and then checks that after the
// scan host git runs nothing.
func (f *scanFixture) attack(t *testing.T, gitDir string, plant func(), want ...string) GitScanReport {
	t.Helper()
	plant()
	if !f.hostGitRuns(t, gitDir) {
		t.Fatalf("control: the planted code did not run before the scan")
	}
	rep := f.scan(t)
	wantSetAside(t, rep, want...)
	if f.hostGitRuns(t, gitDir) {
		t.Errorf("host git ran planted code after the scan; report %+v", rep)
	}
	return rep
}

func TestScanGitFreshRepositoriesKeepWorking(t *testing.T) {
	f := newScanFixture(t)
	sub := filepath.Join(f.proj, "fresh")
	runGit(t, f.home, f.proj, "init", "-q", "fresh")
	runGit(t, f.home, f.proj, "clone", "-q", f.proj, "clone")
	runGit(t, f.home, f.proj, "init", "-q", "--bare", "bare.git")
	runGit(t, f.home, f.proj, "worktree", "add", "-q", "wt")
	runGit(t, f.home, f.proj, "branch", "feature")
	runGit(t, f.home, f.proj, "stash", "list")
	rep := f.scan(t)
	if len(rep.SetAside) != 0 || rep.Stale() {
		t.Fatalf("git's defaults were set aside: %+v", rep)
	}
	runGit(t, f.home, sub, "status")
	runGit(t, f.home, filepath.Join(f.proj, "wt"), "status")
	runGit(t, f.home, filepath.Join(f.proj, "clone"), "fetch", "-q")
}

func TestScanGitCommondir(t *testing.T) {
	f := newScanFixture(t)
	c := filepath.Join(f.proj, ".cache", "git")
	f.attack(t, f.proj, func() {
		mustWrite(t, filepath.Join(c, "config"), "[core]\n\tfsmonitor = \""+f.evil()+"\"\n", 0o644)
		mustWrite(t, filepath.Join(c, "hooks", "post-commit"), "#!/bin/sh\n"+f.evil()+"\n", 0o755)
		os.Symlink(filepath.Join(f.proj, ".git", "objects"), filepath.Join(c, "objects"))
		os.Symlink(filepath.Join(f.proj, ".git", "refs"), filepath.Join(c, "refs"))
		mustWrite(t, filepath.Join(f.proj, ".git", "commondir"), c+"\n", 0o644)
	}, filepath.Join(c, "config"), filepath.Join(c, "hooks", "post-commit"), filepath.Join(f.proj, ".git", "commondir"))
}

func TestScanGitDotGitFile(t *testing.T) {
	f := newScanFixture(t)
	proj := filepath.Join(f.proj, "other")
	r := filepath.Join(proj, ".cache", "r")
	f.attack(t, proj, func() {
		runGit(t, f.home, f.proj, "init", "-q", "--bare", r)
		mustWrite(t, filepath.Join(r, "config"), "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = \""+f.evil()+"\"\n", 0o644)
		mustWrite(t, filepath.Join(proj, ".git"), "gitdir: .cache/r\n", 0o644)
	}, filepath.Join(r, "config"), filepath.Join(proj, ".git"))
}

func TestScanGitConfigWorktree(t *testing.T) {
	f := newScanFixture(t)
	// The protected config already enables worktree configuration (its
	// owner did): config.worktree is what a command can write.
	os.Chmod(filepath.Join(f.proj, ".git", "config"), 0o644)
	runGit(t, f.home, f.proj, "config", "extensions.worktreeConfig", "true")
	cw := filepath.Join(f.proj, ".git", "config.worktree")
	f.attack(t, f.proj, func() {
		mustWrite(t, cw, "[core]\n\tfsmonitor = \""+f.evil()+"\"\n", 0o644)
	}, cw)
}

func TestScanGitIncludeTarget(t *testing.T) {
	f := newScanFixture(t)
	runGit(t, f.home, f.proj, "config", "include.path", "../.gitconfig.local")
	local := filepath.Join(f.proj, ".gitconfig.local")
	f.attack(t, f.proj, func() {
		mustWrite(t, local, "[core]\n\tfsmonitor = \""+f.evil()+"\"\n", 0o644)
	}, local)
}

func TestScanGitHooksPath(t *testing.T) {
	f := newScanFixture(t)
	runGit(t, f.home, f.proj, "config", "core.hooksPath", "tools/hooks")
	hook := filepath.Join(f.proj, "tools", "hooks", "post-commit")
	f.attack(t, f.proj, func() {
		mustWrite(t, hook, "#!/bin/sh\n"+f.evil()+"\n", 0o755)
	}, hook)
}

// A submodule's git directory (.git/modules/lib, its config bound
// read-only as the compile binds it) sets a relative core.hooksPath:
// git runs the hooks from the submodule's worktree (core.worktree), so
// the scan looks there, not in the git directory.
func TestScanGitSubmoduleHooksPath(t *testing.T) {
	f := newScanFixture(t)
	mod := filepath.Join(f.proj, ".git", "modules", "lib")
	runGit(t, f.home, f.proj, "init", "-q", "--bare", mod)
	mustWrite(t, filepath.Join(mod, "config"), "[core]\n\tbare = false\n\tworktree = ../../../lib\n\thooksPath = .githooks\n", 0o644)
	mustWrite(t, filepath.Join(f.proj, "lib", ".git"), "gitdir: ../.git/modules/lib\n", 0o644)
	f.inv.Bwrap.Args = append(f.inv.Bwrap.Args, "--ro-bind", filepath.Join(mod, "config"), filepath.Join(mod, "config"))
	hook := filepath.Join(f.proj, "lib", ".githooks", "post-commit")
	f.attack(t, filepath.Join(f.proj, "lib"), func() {
		mustWrite(t, hook, "#!/bin/sh\n"+f.evil()+"\n", 0o755)
	}, hook)
}

func TestScanGitNestedAndBare(t *testing.T) {
	f := newScanFixture(t)
	deep := filepath.Join(f.proj, "vendor", "a", "b", "c")
	f.attack(t, deep, func() {
		runGit(t, f.home, f.proj, "init", "-q", deep)
		mustWrite(t, filepath.Join(deep, ".git", "config"), "[core]\n\tfsmonitor = \""+f.evil()+"\"\n", 0o644)
	}, filepath.Join(deep, ".git", "config"))
	bare := filepath.Join(f.proj, "data", "b")
	plant := func() {
		runGit(t, f.home, f.proj, "init", "-q", "--bare", bare)
		mustWrite(t, filepath.Join(bare, "config"), "[core]\n\tbare = true\n[alias]\n\tlog = !"+f.evil()+"\n[pager]\n\tlog = "+f.evil()+"\n", 0o644)
	}
	plant()
	rep := f.scan(t)
	wantSetAside(t, rep, filepath.Join(bare, "config"))
}

func TestScanGitSubmoduleAndWorktreeDirs(t *testing.T) {
	f := newScanFixture(t)
	m := filepath.Join(f.proj, ".git", "modules", "lib", "x")
	runGit(t, f.home, f.proj, "init", "-q", "--bare", m)
	mustWrite(t, filepath.Join(m, "config"), "[core]\n\tsshCommand = "+f.evil()+"\n", 0o644)
	mustWrite(t, filepath.Join(m, "hooks", "post-checkout"), "#!/bin/sh\n", 0o755)
	runGit(t, f.home, f.proj, "worktree", "add", "-q", "wt")
	wcw := filepath.Join(f.proj, ".git", "worktrees", "wt", "config.worktree")
	mustWrite(t, wcw, "[core]\n\tpager = "+f.evil()+"\n", 0o644)
	rep := f.scan(t)
	wantSetAside(t, rep, filepath.Join(m, "config"), filepath.Join(m, "hooks", "post-checkout"), wcw)
}

func TestScanGitHooksAndLinks(t *testing.T) {
	f := newScanFixture(t)
	n := filepath.Join(f.proj, "n")
	runGit(t, f.home, f.proj, "init", "-q", n)
	outside := filepath.Join(f.home, "outside-config")
	mustWrite(t, outside, "[alias]\n\tst = status\n", 0o644)
	cfg := filepath.Join(n, ".git", "config")
	os.Remove(cfg)
	os.Symlink(outside, cfg)
	os.Symlink("/bin/true", filepath.Join(n, ".git", "hooks", "pre-commit"))
	// A FIFO where git reads configuration cannot hang the scan.
	if err := syscall.Mkfifo(filepath.Join(n, ".git", "config.worktree"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := f.scan(t)
	// The link is moved, never what it points to.
	wantSetAside(t, rep, cfg, filepath.Join(n, ".git", "hooks", "pre-commit"))
	if b, err := os.ReadFile(outside); err != nil || !strings.Contains(string(b), "alias") {
		t.Errorf("the link's target changed: %q %v", b, err)
	}
	// The user's own protected config and hooks, code keys and all, stay.
	f2 := newScanFixture(t)
	runGit(t, f2.home, f2.proj, "config", "core.pager", "less")
	mustWrite(t, filepath.Join(f2.proj, ".git", "hooks", "pre-commit"), "#!/bin/sh\n", 0o755)
	if rep := f2.scan(t); rep.Stale() {
		t.Errorf("protected entries were set aside: %+v", rep)
	}
}

func TestScanGitBoundsFailClosed(t *testing.T) {
	f := newScanFixture(t)
	d := filepath.Join(f.proj, "deep")
	p := d
	for i := 0; i <= git.MaxWalkDepth; i++ {
		p = filepath.Join(p, "d")
	}
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	rep := f.scan(t)
	if !rep.Stale() || len(rep.Warnings) == 0 || !strings.Contains(rep.Warnings[0], "levels below") {
		t.Errorf("a scan past its depth bound was not reported stale: %+v", rep)
	}
}

func TestParseGitConfig(t *testing.T) {
	es, err := git.ParseConfig([]byte("\xef\xbb\xbf# c\n[Core]  FSMonitor = \"a b\" ; x\n[remote \"Or\\\"ig\"]\n url = ext::sh \\\n -c x\n[a.B]\nflag\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []git.ConfigEntry{{Key: "core.fsmonitor", Value: "a b", Line: 2},
		{Key: "remote.Or\"ig.url", Value: "ext::sh  -c x", Line: 4}, {Key: "a.b.flag", Bool: true, Line: 7}}
	if len(es) != len(want) {
		t.Fatalf("got %+v", es)
	}
	for i := range want {
		if es[i] != want[i] {
			t.Errorf("entry %d: got %+v, want %+v", i, es[i], want[i])
		}
	}
	for _, bad := range []string{"key = x\n", "[core\n", "[core]\n1x = y\n", "[core]\nx = \"open\n", "[core]\nx = \\q\n"} {
		if _, err := git.ParseConfig([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	for _, k := range []string{"core.fsmonitor", "alias.x", "filter.lfs.smudge", "diff.x.textconv", "credential.https://h.helper", "includeif.gitdir:x.path", "remote.o.uploadpack",
		"tar.tar.gz.command", "imap.tunnel", "guitool.x.cmd", "svn.authorsprog", "lfs.customtransfer.x.path", "x.y.somecommand", "x.sequenceeditor"} {
		if !git.CodeKey(git.ConfigEntry{Key: k}) {
			t.Errorf("%s is not a code key", k)
		}
	}
	for _, k := range []string{"core.bare", "remote.o.url", "branch.main.merge", "core.worktree", "diff.x.binary", "user.name",
		"core.repositoryformatversion", "core.filemode", "core.logallrefupdates", "remote.o.fetch", "submodule.x.url", "submodule.x.active", "extensions.worktreeconfig"} {
		if git.CodeKey(git.ConfigEntry{Key: k, Value: "v"}) {
			t.Errorf("%s is a code key", k)
		}
	}
}

// TestScanGitNoHidingPlaces: making the project look like a bare
// repository does not stop the walk, and a directory the scan cannot
// list (mode 0111: git can still reach a name in it) is checked by name
// and reported stale.
func TestScanGitNoHidingPlaces(t *testing.T) {
	f := newScanFixture(t)
	for _, n := range []string{"HEAD", "config"} {
		mustWrite(t, filepath.Join(f.proj, n), "ref: refs/heads/main\n", 0o644)
	}
	os.MkdirAll(filepath.Join(f.proj, "objects"), 0o755)
	os.MkdirAll(filepath.Join(f.proj, "refs"), 0o755)
	deep := filepath.Join(f.proj, "x", "y")
	runGit(t, f.home, f.proj, "init", "-q", deep)
	mustWrite(t, filepath.Join(deep, ".git", "config"), "[core]\n\tpager = evil\n", 0o644)
	hidden := filepath.Join(f.proj, "locked")
	runGit(t, f.home, f.proj, "init", "-q", hidden)
	mustWrite(t, filepath.Join(hidden, ".git", "config"), "[core]\n\tpager = evil\n", 0o644)
	if err := os.Chmod(hidden, 0o111); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(hidden, 0o755)
	rep := f.scan(t)
	wantSetAside(t, rep, filepath.Join(deep, ".git", "config"))
	if os.Getuid() != 0 { // root lists it anyway
		wantSetAside(t, rep, filepath.Join(hidden, ".git", "config"))
		if !strings.Contains(strings.Join(rep.Warnings, "\n"), "could not list "+hidden) {
			t.Errorf("an unlistable directory was not reported: %+v", rep)
		}
	}
}
