package scan

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/bwpolicy/bwpolicy/hazard/git"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// stagedAttacks leave, in the writable project, code where git would run
// it once the place is a repository, and then (finish) make it one
// without a new pointer, as a later command would after a recompile.
var stagedAttacks = []struct {
	name string
	// plant runs as the first command; finish as the second.
	plant, finish func(t *testing.T, f *scanFixture) (gitWork string)
	want          func(f *scanFixture) []string // set aside by the first scan
}{
	{name: "git directory without HEAD: config",
		plant: func(t *testing.T, f *scanFixture) string {
			w := filepath.Join(f.proj, "w")
			runGit(t, f.home, f.proj, "init", "-q", w)
			os.Remove(filepath.Join(w, ".git", "HEAD"))
			mustWrite(t, filepath.Join(w, ".git", "config"), "[core]\n\tfsmonitor = \""+f.evil()+"\"\n", 0o644)
			return w
		},
		finish: func(t *testing.T, f *scanFixture) string {
			w := filepath.Join(f.proj, "w")
			mustWrite(t, filepath.Join(w, ".git", "HEAD"), "ref: refs/heads/master\n", 0o644)
			return w
		},
		want: func(f *scanFixture) []string { return []string{filepath.Join(f.proj, "w", ".git", "config")} }},
	{name: "git directory whose refs do not resolve: hook",
		plant: func(t *testing.T, f *scanFixture) string {
			w := filepath.Join(f.proj, "h")
			runGit(t, f.home, f.proj, "init", "-q", w)
			g := filepath.Join(w, ".git")
			if err := os.Rename(filepath.Join(g, "refs"), filepath.Join(w, "r")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("../r", filepath.Join(g, "refs")); err != nil {
				t.Fatal(err)
			}
			os.Rename(filepath.Join(w, "r"), filepath.Join(w, "r-away")) // refs dangles: no repository
			mustWrite(t, filepath.Join(g, "hooks", "post-commit"), "#!/bin/sh\n"+f.evil()+"\n", 0o755)
			return w
		},
		finish: func(t *testing.T, f *scanFixture) string {
			w := filepath.Join(f.proj, "h")
			os.Rename(filepath.Join(w, "r-away"), filepath.Join(w, "r"))
			return w
		},
		want: func(f *scanFixture) []string {
			return []string{filepath.Join(f.proj, "h", ".git", "hooks", "post-commit")}
		}},
	{name: "rebase to-do list with an exec line",
		plant: func(t *testing.T, f *scanFixture) string {
			w := filepath.Join(f.proj, "rb")
			runGit(t, f.home, f.proj, "init", "-q", w)
			for _, m := range []string{"a", "b", "c"} {
				runGit(t, f.home, w, "commit", "-q", "--allow-empty", "-m", m)
			}
			todo := filepath.Join(f.proj, "todo")
			mustWrite(t, todo, "break\nexec "+f.evil()+"\n", 0o644)
			cmd := gitCmd(f.home, w, "rebase", "-i", "HEAD~2")
			cmd.Env = append(cmd.Env, "GIT_SEQUENCE_EDITOR=cp "+todo)
			cmd.CombinedOutput() // stops at "break"
			if _, err := os.Stat(filepath.Join(w, ".git", "rebase-merge", "git-rebase-todo")); err != nil {
				t.Fatalf("no rebase in progress: %v", err)
			}
			return w
		},
		finish: func(t *testing.T, f *scanFixture) string { return filepath.Join(f.proj, "rb") },
		want: func(f *scanFixture) []string {
			return []string{filepath.Join(f.proj, "rb", ".git", "rebase-merge", "git-rebase-todo")}
		}},
}

// H9: what a command leaves where git would run it once the place is a
// repository is set aside by the scan after that command, though no
// repository is there yet: after a recompile (its files older than the
// new compile, and bound read-only by it) it would pass as the user's.
// Control: without that first scan, the recompile's scan after the
// command that finishes the repository finds nothing, and host git runs
// the planted code.
func TestScanGitStaged(t *testing.T) {
	for _, a := range stagedAttacks {
		t.Run(a.name, func(t *testing.T) {
			for _, control := range []bool{false, true} {
				f := newScanFixture(t)
				f.compiledNow()
				a.plant(t, f)
				if !control {
					wantSetAside(t, f.scan(t), a.want(f)...)
				}
				f.compiledNow() // the recompile
				w := a.finish(t, f)
				rep := f.scan(t)
				ran := f.hostGitContinues(t, w)
				switch {
				case !control && ran:
					t.Errorf("host git ran the staged code; second scan %+v", rep)
				case control && !ran:
					t.Errorf("control: host git did not run the staged code after the recompile (second scan %+v)", rep)
				}
			}
		})
	}
}

// hostGitContinues is hostGitRuns plus the continuation of a rebase in
// progress.
func (f *scanFixture) hostGitContinues(t *testing.T, dir string) bool {
	t.Helper()
	ran := f.hostGitRuns(t, dir)
	os.Remove(f.marker)
	gitCmd(f.home, dir, "rebase", "--continue").CombinedOutput()
	_, err := os.Stat(f.marker)
	return ran || err == nil
}

// H9: a directory holding a file named as git's configuration, though
// not a repository, has that file checked like a repository's: a code
// key the command wrote is set aside, a file in another format stays,
// and so does an executable in a hooks directory not named as a hook.
func TestScanGitStagedNames(t *testing.T) {
	f := newScanFixture(t)
	f.compiledNow()
	stage := filepath.Join(f.proj, ".stash")
	code := filepath.Join(stage, "config")
	mustWrite(t, code, "[core]\n\tfsmonitor = \""+f.evil()+"\"\n", 0o644)
	other := filepath.Join(f.proj, "deploy", "config")
	mustWrite(t, other, "server: {port: 80}\n", 0o644)
	hook := filepath.Join(f.proj, "tools", "hooks", "pre-push")
	mustWrite(t, hook, "#!/bin/sh\n", 0o755)
	script := filepath.Join(f.proj, "src", "hooks", "useThing.sh")
	mustWrite(t, script, "#!/bin/sh\n", 0o755)
	if err := os.MkdirAll(filepath.Join(f.proj, "app", "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	rep := f.scan(t)
	wantSetAside(t, rep, code, hook)
	for _, p := range []string{other, script, filepath.Join(f.proj, "app", "config")} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s, not git's, was set aside: %v", p, err)
		}
	}
}

// H9: a symlink into a ".git" directory leads git to a repository
// nested there (which the walk does not enter): its code is set aside,
// and so is the link. Control: without the scan, host git run through
// the link runs it.
func TestScanGitLinkToNestedInGitDir(t *testing.T) {
	for _, control := range []bool{false, true} {
		f := newScanFixture(t)
		f.compiledNow()
		x := filepath.Join(f.proj, ".git", "x")
		runGit(t, f.home, f.proj, "init", "-q", x)
		mustWrite(t, filepath.Join(x, ".git", "config"), "[core]\n\tfsmonitor = \""+f.evil()+"\"\n", 0o644)
		link := filepath.Join(f.proj, "docs")
		if err := os.Symlink(".git/x", link); err != nil {
			t.Fatal(err)
		}
		if !control {
			wantSetAside(t, f.scan(t), filepath.Join(x, ".git", "config"), link)
			if f.hostGitRuns(t, x) {
				t.Errorf("host git in the nested repository ran code after the scan")
			}
			continue
		}
		if !f.hostGitRuns(t, link) {
			t.Errorf("control: host git through the link did not run the nested repository's code")
		}
	}
}

// gitCmd is a host git command in dir that reads no global or system
// configuration.
func gitCmd(home, dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, gitEnv(home)
	return cmd
}

// H9: what a pointer the command wrote leads to is judged as the
// command's, whatever its age. A common directory with a code key is
// staged inside the project's .git (which the walk does not enter)
// before a recompile; after it, a command makes a new repository whose
// commondir points there. The config, older than the compile, is set
// aside with the pointer; f.attack's control shows host git runs it
// before the scan.
func TestScanGitPointerWrittenDistrustsTarget(t *testing.T) {
	f := newScanFixture(t)
	f.compiledNow()
	stash := filepath.Join(f.proj, ".git", "x")
	for _, d := range []string{"objects", "refs"} {
		if err := os.MkdirAll(filepath.Join(stash, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(stash, "config")
	mustWrite(t, cfg, "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = \""+f.evil()+"\"\n", 0o644)
	f.compiledNow() // the recompile: the staged config predates it
	w := filepath.Join(f.proj, "w")
	f.attack(t, w, func() {
		runGit(t, f.home, f.proj, "init", "-q", w)
		mustWrite(t, filepath.Join(w, ".git", "commondir"), "../../.git/x\n", 0o644)
	}, cfg, filepath.Join(w, ".git", "commondir"))
}

// H9: git's global configuration at GIT_CONFIG_GLOBAL, inside the
// writable set, is checked like a repository's: a code key the command
// wrote there is set aside (f.attack's control: host git with that
// variable runs it before the scan).
func TestScanGitGlobalConfigFromEnv(t *testing.T) {
	f := newScanFixture(t)
	f.compiledNow()
	g := filepath.Join(f.proj, "dots", "gitconfig")
	t.Setenv("GIT_CONFIG_GLOBAL", g)
	f.attack(t, f.proj, func() {
		mustWrite(t, g, "[core]\n\tfsmonitor = \""+f.evil()+"\"\n", 0o644)
	}, g)
}

// git.ParseConfig reads a backslash before CR LF as git does: a line
// continuation (the second review hid a core.fsmonitor behind one, which
// the parser refused and a not-yet repository's check then passed by).
// Checked against real git.
func TestParseGitConfigCRLFContinuation(t *testing.T) {
	cfg := "[core]\r\n\tfsmonitor = \\\r\ntouch /x\r\n"
	es, err := git.ParseConfig([]byte(cfg))
	if err != nil || len(es) != 1 || es[0].Key != "core.fsmonitor" || es[0].Value != "touch /x" {
		t.Fatalf("git.ParseConfig = %+v, %v; want core.fsmonitor = \"touch /x\"", es, err)
	}
	p := filepath.Join(t.TempDir(), "config")
	mustWrite(t, p, cfg, 0o644)
	out, err := exec.Command("git", "config", "--file", p, "core.fsmonitor").Output()
	if err != nil || string(out) != "touch /x\n" {
		t.Errorf("git reads %q (%v): the test's premise no longer holds", out, err)
	}
}

// H9: a directory of hooks written under another name before a recompile
// and renamed into a new repository's git directory after it: the files
// keep their old status-change time, the directory does not, and every
// hook in it is judged the command's. f.attack's control: host git runs
// the hook before the scan.
func TestScanGitHooksRenamedIntoPlace(t *testing.T) {
	f := newScanFixture(t)
	f.compiledNow()
	staged := filepath.Join(f.proj, ".cache", "x", "hk")
	mustWrite(t, filepath.Join(staged, "post-commit"), "#!/bin/sh\n"+f.evil()+"\n", 0o755)
	f.compiledNow() // the recompile
	app := filepath.Join(f.proj, "app")
	f.attack(t, app, func() {
		runGit(t, f.home, f.proj, "init", "-q", app)
		if err := os.RemoveAll(filepath.Join(app, ".git", "hooks")); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(staged, filepath.Join(app, ".git", "hooks")); err != nil {
			t.Fatal(err)
		}
	}, filepath.Join(app, ".git", "hooks", "post-commit"))
}

// H9: a rebase left stopped with a merge strategy that is not git's own
// (a name with a slash runs a file of the worktree: git-merge-../../x
// is ./x below a directory git-merge-..) is set aside; host git rebase
// --skip and --continue then run nothing. Control: without the scan
// they run x.
func TestScanGitRebaseStrategy(t *testing.T) {
	for _, control := range []bool{false, true} {
		f := newScanFixture(t)
		f.compiledNow()
		w := filepath.Join(f.proj, "w")
		runGit(t, f.home, f.proj, "init", "-q", "-b", "master", w)
		mustWrite(t, filepath.Join(w, "a"), "a\n", 0o644)
		runGit(t, f.home, w, "add", "a")
		runGit(t, f.home, w, "commit", "-qm", "a")
		runGit(t, f.home, w, "checkout", "-q", "-b", "side")
		runGit(t, f.home, w, "commit", "-q", "--allow-empty", "-m", "s")
		runGit(t, f.home, w, "checkout", "-q", "master")
		runGit(t, f.home, w, "commit", "-q", "--allow-empty", "-m", "m")
		runGit(t, f.home, w, "commit", "-q", "--allow-empty", "-m", "m2")
		if err := os.Mkdir(filepath.Join(w, "git-merge-.."), 0o755); err != nil {
			t.Fatal(err)
		}
		mustWrite(t, filepath.Join(w, "x"), "#!/bin/sh\n[ -e "+f.marker+".armed ] && "+f.evil()+"\nexit 2\n", 0o755)
		gitCmd(f.home, w, "rebase", "-s", "../../x", "side").CombinedOutput() // stops: x exits 2
		if _, err := os.Stat(filepath.Join(w, ".git", "rebase-merge", "strategy")); err != nil {
			t.Fatalf("no rebase stopped with the strategy: %v", err)
		}
		if !control {
			wantSetAside(t, f.scan(t), filepath.Join(w, ".git", "rebase-merge", "strategy"))
		}
		mustWrite(t, f.marker+".armed", "", 0o644)
		os.Remove(f.marker)
		gitCmd(f.home, w, "rebase", "--skip").CombinedOutput()
		gitCmd(f.home, w, "rebase", "--continue").CombinedOutput()
		_, err := os.Stat(f.marker)
		switch {
		case !control && err == nil:
			t.Errorf("host git rebase --continue ran the strategy after the scan")
		case control && err != nil:
			t.Errorf("control: host git rebase --continue did not run the strategy")
		}
	}
}

// H9: core.worktree naming a place outside the writable set counts as a
// code key (a later host merge or checkout writes the branch's files
// there); the one git submodule writes (../../../NAME, inside the
// superproject) does not.
func TestScanGitWorktreeAway(t *testing.T) {
	f := newScanFixture(t)
	f.compiledNow()
	away := filepath.Join(f.proj, "away")
	runGit(t, f.home, f.proj, "init", "-q", away)
	runGit(t, f.home, away, "config", "core.worktree", f.home)
	sub := filepath.Join(f.proj, "sub")
	runGit(t, f.home, f.proj, "init", "-q", sub)
	runGit(t, f.home, sub, "config", "core.worktree", "../../sub")
	rep := f.scan(t)
	wantSetAside(t, rep, filepath.Join(away, ".git", "config"))
	for _, s := range rep.SetAside {
		if s.Path == filepath.Join(sub, ".git", "config") {
			t.Errorf("a core.worktree inside the writable set was set aside: %+v", s)
		}
	}
}

// H9: a .git file (and a commondir) written before a recompile names a
// git directory that does not exist yet; after the recompile a command
// renames a fake git directory, staged inside .git where the walk does
// not look, onto that name. Its files keep their old times, the renamed
// directory does not: everything in it is judged the command's.
// f.attack's control: host git runs it before the scan.
func TestScanGitRenamedOntoPointerTarget(t *testing.T) {
	for _, viaCommondir := range []bool{false, true} {
		f := newScanFixture(t)
		f.compiledNow()
		g := filepath.Join(f.proj, ".git")
		stage := filepath.Join(g, "y")
		for _, d := range []string{"refs/heads", "objects", "hooks"} {
			if err := os.MkdirAll(filepath.Join(stage, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		mustWrite(t, filepath.Join(stage, "HEAD"), "ref: refs/heads/main\n", 0o644)
		cfg := "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = \"" + f.evil() + "\"\n"
		mustWrite(t, filepath.Join(stage, "config"), cfg, 0o644)
		var dir, target string
		if viaCommondir {
			dir = filepath.Join(f.proj, "sub")
			runGit(t, f.home, f.proj, "init", "-q", dir)
			target = filepath.Join(dir, ".git", "zz")
			mustWrite(t, filepath.Join(dir, ".git", "commondir"), "zz\n", 0o644)
		} else {
			dir = filepath.Join(f.proj, "wt")
			target = filepath.Join(g, "y2")
			mustWrite(t, filepath.Join(dir, ".git"), "gitdir: ../.git/y2\n", 0o644)
		}
		f.compiledNow() // the recompile
		f.attack(t, dir, func() {
			if err := os.Rename(stage, target); err != nil {
				t.Fatal(err)
			}
		}, filepath.Join(target, "config"))
	}
}

// H9: a file the environment makes host programs run (BASH_ENV), which
// the compile recorded as a symlink (it cannot be bound read-only) or as
// absent, and which a command replaced or created, is set aside like a
// start-up name. Control: the user's own unchanged link stays.
func TestScanGitStartupVarFiles(t *testing.T) {
	f := newScanFixture(t)
	link := filepath.Join(f.proj, "bashenv")
	if err := os.Symlink("shared/bashenv", link); err != nil {
		t.Fatal(err)
	}
	created := filepath.Join(f.proj, "gitsys")
	f.inv.Preconditions = append(f.inv.Preconditions,
		invocation.Precondition{Path: link, Kind: invocation.KindSymlink, Target: "shared/bashenv", Why: invocation.ReasonProtectedEntries},
		invocation.Precondition{Path: created, Kind: invocation.KindAbsent, Why: invocation.ReasonProtectedEntries})
	t.Setenv("BASH_ENV", link)
	t.Setenv("GIT_CONFIG_SYSTEM", created)
	f.compiledNow()
	if rep := f.scan(t); len(rep.SetAside) > 0 {
		t.Fatalf("the user's own BASH_ENV link was set aside: %+v", rep)
	}
	os.Remove(link)
	mustWrite(t, link, "echo evil\n", 0o644)
	mustWrite(t, created, "[core]\n", 0o644)
	wantSetAside(t, f.scan(t), link, created)
}
