package sandboxtest

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// gitAttack is one way a command can make a later host git run its code
// through an indirection git follows (H9): setup builds the project
// {p} on the host before compiling (as the user), plant runs in the
// sandbox, and hostDir (relative to {p}) is where the host git runs
// afterwards. {m} is the marker path the planted code touches.
type gitAttack struct {
	name, setup, plant, hostDir string
	// settings are added to the compile's (after "cwd: {p}").
	settings string
	// host, when set, is the host git command line run afterwards
	// (default: status, diff and an empty commit).
	host string
}

// gitInit makes {p} a repository with one commit.
const gitInit = `git init -q {p} && cd {p} && echo x > README && git add README && git commit -qm init && `

// fsm is a configuration line that makes host git run the marker.
const fsm = `printf '[core]\n\tfsmonitor = "touch {m}"\n'`

// fsmWorktree is fsm for a bare repository a .git file makes a worktree's.
const fsmWorktree = `printf '[core]\n\tbare = false\n\tfsmonitor = "touch {m}"\n'`

// bareSub makes {p}/sub a bare repository by its files (HEAD, objects,
// refs, config) whose core.worktree is itself and whose fsmonitor runs
// the marker.
const bareSub = `mkdir -p sub/objects sub/refs/heads && echo 'ref: refs/heads/main' > sub/HEAD && printf '[core]\n\trepositoryformatversion = 0\n\tworktree = .\n\tfsmonitor = "touch {m}"\n' > sub/config`

var gitAttacks = []gitAttack{
	{name: "commondir", setup: gitInit + "true",
		plant: `mkdir -p .cache/git/hooks && ` + fsm + ` > .cache/git/config && printf '#!/bin/sh\ntouch {m}\n' > .cache/git/hooks/post-commit && chmod +x .cache/git/hooks/post-commit && ln -s {p}/.git/objects .cache/git/objects && ln -s {p}/.git/refs .cache/git/refs && echo {p}/.cache/git > .git/commondir`},
	{name: "gitfile", setup: "mkdir -p {p} && echo x > {p}/README",
		plant: `git init -q --bare .cache/r && ` + fsmWorktree + ` >> .cache/r/config && echo "gitdir: {p}/.cache/r" > .git`},
	{name: "config_worktree", setup: gitInit + "git config extensions.worktreeConfig true",
		plant: fsm + ` > .git/config.worktree`},
	{name: "worktrees", setup: gitInit + "git config extensions.worktreeConfig true && git worktree add -q {p}-wt",
		plant: fsm + ` > .git/worktrees/$(basename {p})-wt/config.worktree`, hostDir: "-wt"},
	{name: "submodule_gitfile", setup: gitInit + "git init -q {p}-lib && git -C {p}-lib commit -q --allow-empty -m l && git -c protocol.file.allow=always submodule -q add {p}-lib lib && git commit -qm sub && git submodule -q deinit -f lib",
		plant: `git init -q --bare .cache/s && ` + fsmWorktree + ` >> .cache/s/config && echo "gitdir: {p}/.cache/s" > lib/.git`},
	{name: "include_target", setup: gitInit + "git config include.path ../.gitlocal",
		plant: fsm + ` > .gitlocal`},
	{name: "hooks_path", setup: gitInit + "git config core.hooksPath tools/hooks",
		plant: `mkdir -p tools/hooks && printf '#!/bin/sh\ntouch {m}\n' > tools/hooks/post-commit && chmod +x tools/hooks/post-commit`},
	{name: "nested_repo", setup: gitInit + "true",
		plant: `git init -q vendor/a/b && ` + fsm + ` >> vendor/a/b/.git/config`, hostDir: "/vendor/a/b"},
	// A directory git takes as a bare repository although it holds a
	// .git entry: one git passes by (a FIFO, a dangling symlink, a
	// directory that is no repository) sends its discovery on to the
	// directory itself (setup.c); core.worktree makes it a worktree.
	{name: "dotgit_fifo_bare", setup: gitInit + "true", plant: bareSub + ` && mkfifo sub/.git`, hostDir: "/sub"},
	{name: "dotgit_dangling_bare", setup: gitInit + "true", plant: bareSub + ` && ln -s /nonexistent sub/.git`, hostDir: "/sub"},
	{name: "dotgit_emptydir_bare", setup: gitInit + "true", plant: bareSub + ` && mkdir sub/.git`, hostDir: "/sub"},
	// git's is_git_directory asks access(X_OK) of refs and objects: an
	// executable file passes.
	{name: "refs_file", setup: gitInit + "true", plant: bareSub + ` && rm -r sub/refs && touch sub/refs && chmod +x sub/refs`, hostDir: "/sub"},
	// A .git file read as a C string (a NUL ends it) and its relative
	// gitdir joined as the kernel resolves it (.. after a symlink), to a
	// git directory kept where the walk does not go (inside .git).
	{name: "gitfile_nul", setup: gitInit + "true",
		plant: `git init -q --bare .git/evil && ` + fsmWorktree + ` >> .git/evil/config && mkdir w && printf 'gitdir: {p}/.git/evil\000x\n' > w/.git`, hostDir: "/w"},
	{name: "gitfile_dotdot", setup: gitInit + "true",
		plant: `git init -q --bare .git/evil && ` + fsmWorktree + ` >> .git/evil/config && mkdir -p w .git/lnk && ln -s ../.git/lnk w/l && echo 'gitdir: l/../evil' > w/.git`, hostDir: "/w"},
	// A .git symlink to a file holding "gitdir:" (git stat()s through
	// the link and reads the file), and a symlink into a .git directory
	// (the walk does not go there) that makes a bare repository there
	// the one a host git in that directory uses.
	{name: "gitfile_symlink", setup: gitInit + "true",
		plant: `git init -q --bare .git/evil && ` + fsmWorktree + ` >> .git/evil/config && mkdir w && echo 'gitdir: {p}/.git/evil' > w/gf && ln -s gf w/.git`, hostDir: "/w"},
	{name: "symlink_into_dotgit", setup: gitInit + "true",
		plant: `git init -q --bare .git/evil && printf '[core]\n\tbare = false\n\tworktree = {p}\n\tfsmonitor = "touch {m}"\n' >> .git/evil/config && ln -s .git/evil tools`,
		host:  "(cd tools && git status; git diff; git commit -q --allow-empty -m host)"},
	// A pointer through /proc/self/cwd: git resolves it against its own
	// working directory, bwrun against its.
	{name: "gitfile_proc_cwd", setup: gitInit + "true",
		plant: `git init -q --bare .git/evil && ` + fsmWorktree + ` >> .git/evil/config && mkdir w && echo 'gitdir: /proc/self/cwd/../.git/evil' > w/.git`, hostDir: "/w"},
	{name: "gitfile_link_proc_cwd", setup: gitInit + "true",
		plant: `git init -q --bare .git/evil && ` + fsmWorktree + ` >> .git/evil/config && mkdir w && ln -s /proc/self/cwd w/l && echo 'gitdir: l/../.git/evil' > w/.git`, hostDir: "/w"},
	// A hooks directory past the scan's bound of entries.
	{name: "hooks_many", setup: gitInit + "true",
		plant: `git init -q v && for i in $(seq 1100); do : > v/.git/hooks/x$i; done && printf '#!/bin/sh\ntouch {m}\n' > v/.git/hooks/post-commit && chmod +x v/.git/hooks/post-commit`, hostDir: "/v"},
	// A directory the scan cannot list (mode 0111: git still walks
	// through it by name) with a repository below it.
	{name: "unlistable_dir", setup: gitInit + "true",
		plant: `git init -q d/sub && ` + fsm + ` >> d/sub/.git/config && chmod 111 d`,
		host:  "(cd d/sub && git status; git diff; git commit -q --allow-empty -m host)"},
	// A repository below the scan's 64 levels.
	{name: "too_deep", setup: gitInit + "true",
		plant: `d=$(printf 'a/%.0s' $(seq 66))r && git init -q $d && ` + fsm + ` >> $d/.git/config`,
		host:  `(cd $(printf 'a/%.0s' $(seq 66))r && git status; git diff; git commit -q --allow-empty -m host)`},
	// Configuration keys that run a program, under names outside the
	// first list (git archive's tar.<format>.command).
	// A rebase stopped at "break" whose to-do list ends with an exec
	// line: the host's git rebase --continue runs it.
	{name: "rebase_todo_exec", setup: gitInit + "git commit -q --allow-empty -m b && git commit -q --allow-empty -m c",
		plant: `printf 'break\nexec touch {m}\n' > /tmp/todo && GIT_SEQUENCE_EDITOR="cp /tmp/todo" git rebase -i HEAD~2 >/dev/null 2>&1; test -f .git/rebase-merge/git-rebase-todo`,
		host:  "git status; git rebase --continue"},
	// A repository nested inside .git (which the walks do not enter),
	// reached through a symlink: git's discovery from the link's
	// physical directory finds it (host git runs in that directory:
	// the scan sets the link aside).
	{name: "link_into_git_dir_nested", setup: gitInit + "true",
		plant: `git init -q .git/x && ` + fsm + ` >> .git/x/.git/config && ln -s .git/x docs`, hostDir: "/.git/x"},
	{name: "tar_command", setup: gitInit + "true",
		plant:   `git init -q v && git -C v commit -q --allow-empty -m v && git -C v config tar.tar.gz.command "touch {m}; cat"`,
		hostDir: "/v", host: "git archive -o ../v.tar.gz HEAD"},
	{name: "decoys", setup: gitInit + "for i in $(seq 70); do git init -q d$i; done && git init -q zz",
		plant: fsm + ` >> zz/.git/config`, hostDir: "/zz", settings: "protect:\n  allow: [repositories past the bound]\n"},
	// Past the scan's bounds (#10 §1): 1,100 decoy repositories before
	// a new one with code, 1,100 decoy linked-worktree entries next to
	// the one whose config.worktree the command writes. What the command
	// created past a bound is set aside whole. (What the scan does past
	// its time budget: H9_ledger_scan_budget.)
	{name: "decoys_past_scan_bound", setup: gitInit + "true",
		plant: `seq 1100 | sed 's|.*|d&/.git/refs|' | xargs mkdir -p && for i in $(seq 1100); do echo 'ref: refs/heads/main' > d$i/.git/HEAD; done && git init -q vendor/a/b && ` + fsm + ` >> vendor/a/b/.git/config`,
		host:  "(cd vendor/a/b && git status; git diff; git commit -q --allow-empty -m host)"},
	{name: "worktrees_past_scan_bound", setup: gitInit + "git config extensions.worktreeConfig true && git worktree add -q {p}-wt",
		plant: `seq 1100 | sed 's|^|.git/worktrees/z|' | xargs mkdir -p && ` + fsm + ` > .git/worktrees/$(basename {p})-wt/config.worktree`, hostDir: "-wt"},
}

// H9: for each indirection, a command plants code for a later host git;
// after bwrun returns, real host git (status, diff, commit) in the
// project runs none of it, bwrun named what it set aside, and the next
// command is refused until a recompile. The control runs the same
// sandbox arguments with bwrap directly (no post-command scan): there
// the same host git runs the planted code.
func testGitIndirection(t *testing.T, f *fixture) {
	for _, a := range gitAttacks {
		t.Run(a.name, func(t *testing.T) {
			g := *f
			g.t = t
			for _, protected := range []bool{true, false} {
				p := f.expand("{base}/" + a.name)
				if !protected {
					p += "-control"
				}
				m := p + ".ran"
				x := strings.NewReplacer("{p}", p, "{m}", m)
				r := g.exec(call{argv: []string{"/bin/sh", "-c", gitEnvSetup + x.Replace(a.setup)}, dir: "{base}"})
				if r.code != 0 {
					t.Fatalf("setup: %v", r)
				}
				inv, _ := g.compile("cwd: "+p+"\n"+a.settings, call{dir: p})
				if protected {
					r = g.exec(call{argv: []string{tool("bwrun"), inv, "--", "/bin/sh", "-c", gitEnvSetup + x.Replace(a.plant)}, dir: p})
					g.wantCode(r, 0)
					g.wantStderr(r, "set aside as")
				} else {
					r = g.exec(call{argv: append(append([]string{bwrapPath}, rawArgs(t, inv)...), "--", "/bin/sh", "-c", gitEnvSetup+x.Replace(a.plant)), dir: p})
					g.wantCode(r, 0)
				}
				hostDir := p + a.hostDir
				host := "git status >/dev/null 2>&1; git diff >/dev/null 2>&1; git commit -q --allow-empty -m host >/dev/null 2>&1"
				if a.host != "" {
					host = a.host + " >/dev/null 2>&1"
				}
				r = g.exec(call{argv: []string{"/bin/sh", "-c", gitEnvSetup + host + "; true"}, dir: hostDir})
				_, err := os.Stat(m)
				ran := err == nil
				switch {
				case protected && ran:
					t.Errorf("host git ran the planted code after bwrun returned")
				case !protected && !ran:
					t.Errorf("control: host git did not run the planted code without the scan")
				}
				if protected {
					r = g.exec(call{argv: []string{tool("bwrun"), inv, "--", "/bin/true"}, dir: p})
					g.wantCode(r, 125)
					g.wantStderr(r, "H9", "recompile")
				}
			}
		})
	}
}

// gitEnvSetup gives git an identity and lets submodules use local paths.
const gitEnvSetup = `export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@b GIT_CONFIG_NOSYSTEM=1; `

// rawArgs returns an invocation's bwrap arguments without the options
// that need bwrun's descriptors (info, block, status, seccomp, empty
// files): the same mounts, run by bwrap alone.
func rawArgs(t *testing.T, inv string) []string {
	t.Helper()
	b, err := os.ReadFile(inv)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Bwrap struct {
			Args []string `json:"args"`
		} `json:"bwrap"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var out []string
	args := doc.Bwrap.Args
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--info-fd", "--block-fd", "--json-status-fd", "--seccomp":
			i++
			continue
		case "--ro-bind-data":
			i += 2
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// H9 (issue: the profile home): with home_mode: profile the profile
// home is writable, but its rc files stay read-only, and one a command
// creates is set aside after it, so no later command's shell runs what
// a command wrote there. Control: protect.allow leaves .profile to the
// command, and the next login shell runs it.
func testProfileHomeRC(t *testing.T, f *fixture) {
	f.write(f.expand("{hermes}/home/.bashrc"), "# rc\n")
	f.mkdirAll(f.expand("{hermes}/home/.config"))
	inv, _ := f.compile("home_mode: profile\n", call{})
	r := f.bwrun(inv, `
ok bashrc_write 'echo "export LEAK=1" >> "$HOME/.bashrc"'
ok bashrc_rename 'mv "$HOME/.bashrc" "$HOME/.bashrc2"'
ok profile_create 'echo "export LEAK=1" > "$HOME/.profile"'
ok autostart 'mkdir -p "$HOME/.config/autostart" && echo x > "$HOME/.config/autostart/x.desktop"'
ok home_write 'echo p > "$HOME/notes.txt"'
`, call{})
	f.expect(r, want{"bashrc_write": "no", "bashrc_rename": "no", "profile_create": "yes", "autostart": "yes", "home_write": "yes"})
	f.wantStderr(r, "set aside as", "{hermes}/home/.profile", "{hermes}/home/.config/autostart")
	f.wantHostFile("{hermes}/home/.bashrc", "# rc\n")
	f.wantHostAbsent("{hermes}/home/.profile")
	f.wantHostAbsent("{hermes}/home/.config/autostart")
	f.wantHostFile("{hermes}/home/notes.txt", "p\n")
	r = f.exec(call{argv: []string{tool("bwrun"), inv, "--", "/bin/true"}})
	f.wantCode(r, 125)
	inv, _ = f.compile("home_mode: profile\n", call{})
	r = f.exec(call{argv: []string{tool("bwrun"), inv, "--", "/bin/bash", "-lc", "echo leak=${LEAK-unset}"}})
	if r.code != 0 || !strings.Contains(r.stdout, "leak=unset") {
		t.Errorf("a later login shell ran what a command wrote in the profile home: %v", r)
	}

	// Control: with .profile left to commands, the next login shell runs it.
	inv, _ = f.compile("home_mode: profile\nprotect:\n  allow: [.profile]\n", call{})
	r = f.bwrun(inv, `ok profile_create 'echo "export LEAK=1" > "$HOME/.profile"'`, call{})
	f.expect(r, want{"profile_create": "yes"})
	inv, _ = f.compile("home_mode: profile\nprotect:\n  allow: [.profile]\n", call{})
	r = f.exec(call{argv: []string{tool("bwrun"), inv, "--", "/bin/bash", "-lc", "echo leak=${LEAK-unset}"}})
	if !strings.Contains(r.stdout, "leak=1") {
		t.Errorf("control: the login shell did not run the profile home's .profile: %v", r)
	}
}

// H9 in the default mode: everyday git inside the sandbox keeps working
// (commit, branch, merge, rebase, stash, fetch from a local remote), the
// post-command scan sets nothing aside, and the invocation stays fresh.
// A config write (git branch -u) fails, with git's message; the
// explanation of the .git/config bind says so.
func testGitWorkflow(t *testing.T, f *fixture) {
	r := f.exec(call{argv: []string{"/bin/sh", "-c", gitEnvSetup + strings.ReplaceAll(gitInit, "{p}", "{proj}") + "git branch -M main && git init -q --bare {base}/remote.git && git push -q {base}/remote.git main"}, dir: "{base}"})
	if r.code != 0 {
		t.Fatalf("setup: %v", r)
	}
	inv, _ := f.compile("", call{})
	r = f.bwrun(inv, gitEnvSetup+`
ok commit 'echo y > f && git add f && git commit -qm y'
ok branch 'git branch feat && git checkout -q feat && echo z > g && git add g && git commit -qm z && git checkout -q main'
ok merge 'git merge -q --no-edit feat'
ok rebase 'git checkout -q -b r2 HEAD~2 && echo w > w && git add w && git commit -qm w && git rebase -q main && git checkout -q main'
ok stash 'echo s >> f && git stash -q && git stash pop -q'
ok fetch 'git fetch -q {base}/remote.git main:refs/remotes/r/main'
val branch_u 'git branch -u feat 2>&1; echo status=$?'
ok config_write 'git config user.name x'
`, call{})
	f.expect(r, want{"commit": "yes", "branch": "yes", "merge": "yes", "rebase": "yes", "stash": "yes", "fetch": "yes",
		"branch_u": "~could not write config file", "config_write": "no"})
	if strings.Contains(r.stderr, "set aside") {
		t.Errorf("the post-command scan set something aside after plain git use: %v", r)
	}
	r = f.exec(call{argv: []string{tool("bwrun"), inv, "--", "/bin/true"}})
	f.wantCode(r, 0)
	r = f.exec(call{argv: []string{tool("bwpolicy"), "compile", "--explain"}})
	if !strings.Contains(r.stdout+r.stderr, "branch -u/--track still exits 0") {
		t.Errorf("the explanation does not say that config writes fail: %v", r)
	}
}

// H9 opt-in: protect.git: read-only makes the repository read-only as a
// whole: no commit, no commondir or config.worktree planted, while the
// project stays writable. Control: the default mode commits.
func testProtectGitReadOnly(t *testing.T, f *fixture) {
	r := f.exec(call{argv: []string{"/bin/sh", "-c", gitEnvSetup + strings.ReplaceAll(gitInit, "{p}", "{proj}") + "true"}, dir: "{base}"})
	if r.code != 0 {
		t.Fatalf("setup: %v", r)
	}
	script := gitEnvSetup + `
ok commit 'git commit -q --allow-empty -m x'
ok commondir 'echo /tmp > .git/commondir'
ok worktree_config 'echo "[core]" > .git/config.worktree'
ok project_write 'echo x > new-file'
`
	r = f.sandbox("protect:\n  git: read-only\n", script, call{})
	f.expect(r, want{"commit": "no", "commondir": "no", "worktree_config": "no", "project_write": "yes"})
	f.wantHostAbsent("{proj}/.git/commondir")
	r = f.sandbox("", script, call{})
	f.expect(r, want{"commit": "yes", "project_write": "yes"})
}

// H9 at compile time: the git indirections that exist when the
// invocation is compiled are bound read-only. The project is a
// repository whose .git is a file (git init --separate-git-dir) naming a
// git directory inside the project, with a linked worktree: the .git
// file, the target's config and the worktree's gitdir and commondir
// files cannot be written from inside. Controls: a commit (the rest of
// the git directory stays writable) and a new file next to the
// worktree's pointers succeed.
func testGitIndirectionBound(t *testing.T, f *fixture) {
	r := f.exec(call{argv: []string{"/bin/sh", "-c", gitEnvSetup + "git init -q --separate-git-dir={proj}/.gitdir {proj} && cd {proj} && echo x > README && git add README && git commit -qm init && git worktree add -q {proj}/wt2"}, dir: "{base}"})
	if r.code != 0 {
		t.Fatalf("setup: %v", r)
	}
	gitFile := f.expand("gitdir: {proj}/.gitdir\n")
	_ = gitFile
	r = f.sandbox("", gitEnvSetup+`
ok gitfile 'echo "gitdir: /tmp" > .git'
ok target_config 'echo "[core]" >> .gitdir/config'
ok wt_commondir 'echo /tmp > .gitdir/worktrees/wt2/commondir'
ok wt_gitdir 'echo /tmp > .gitdir/worktrees/wt2/gitdir'
ok commit 'git commit -q --allow-empty -m x'
ok sibling 'echo x > .gitdir/worktrees/wt2/note'
`, call{})
	f.expect(r, want{"gitfile": "no", "target_config": "no", "wt_commondir": "no", "wt_gitdir": "no", "commit": "yes", "sibling": "yes"})
	f.wantHostFile("{proj}/.git", f.expand("gitdir: {proj}/.gitdir\n"))
	f.wantHostFile("{proj}/.gitdir/worktrees/wt2/commondir", "../..\n")
}

// H9 (issue #12 §2): a working directory under the profile home with
// home_mode: profile is accepted, writable, and the profile home's rc
// files and the working directory's own H9 entries stay read-only (they
// are bound after the profile home, not covered by it). Control:
// protect.allow leaves them to the command, and the writes land.
func testCwdInProfileHome(t *testing.T, f *fixture) {
	f.write(f.expand("{hermes}/home/.bashrc"), "# rc\n")
	f.write(f.expand("{hermes}/home/work/.envrc"), "# envrc\n")
	f.write(f.expand("{hermes}/home/work/.git/config"), "[core]\n")
	f.mkdirAll(f.expand("{hermes}/home/work/.git/hooks"))
	const settings = "home_mode: profile\ncwd: {hermes}/home/work\n"
	script := `
ok pwd_here '[ "$(pwd)" = "{hermes}/home/work" ]'
ok cwd_write 'echo w > out.txt'
ok bashrc_write 'echo "export LEAK=1" >> "$HOME/.bashrc"'
ok envrc_write 'echo "export LEAK=1" >> .envrc'
ok hook_create 'echo "#!/bin/sh" > .git/hooks/pre-commit'
ok gitconfig_write 'echo "[core] fsmonitor = x" >> .git/config'
ok cwd_rename 'cd .. && mv work work2'
`
	inv, _ := f.compile(settings, call{})
	r := f.bwrun(inv, script, call{})
	f.expect(r, want{"pwd_here": "yes", "cwd_write": "yes", "bashrc_write": "no", "envrc_write": "no", "hook_create": "no", "gitconfig_write": "no", "cwd_rename": "no"})
	f.wantHostFile("{hermes}/home/work/out.txt", "w\n")
	f.wantHostFile("{hermes}/home/.bashrc", "# rc\n")
	f.wantHostFile("{hermes}/home/work/.envrc", "# envrc\n")
	f.wantHostFile("{hermes}/home/work/.git/config", "[core]\n")
	f.wantHostAbsent("{hermes}/home/work/.git/hooks/pre-commit")

	// Control: the same writes land when protect.allow leaves the entries to commands.
	inv, _ = f.compile(settings+"protect:\n  allow: [.bashrc, .envrc]\n", call{})
	r = f.bwrun(inv, `
ok bashrc_write 'echo "export LEAK=1" >> "$HOME/.bashrc"'
ok envrc_write 'echo "export LEAK=1" >> .envrc'
`, call{})
	f.expect(r, want{"bashrc_write": "yes", "envrc_write": "yes"})
	f.wantHostFile("{hermes}/home/.bashrc", "# rc\nexport LEAK=1\n")
}

// stagedAcross are attacks in two commands with a recompile between
// them: the first stages code where the scan after it finds nothing git
// would run yet (or, for the first, where it must look although git
// would not run it yet), the second puts it where git runs it; its
// files then predate the recompile, whose scan would take them as the
// user's. setAsideBy is the command whose scan must catch it.
var stagedAcross = []struct {
	name, stage, finish, hostDir, setAside string
	setAsideBy                             int // 1 or 2
}{
	// A .git with a core.fsmonitor and no HEAD (git passes it by);
	// the second command writes HEAD.
	{name: "no_head", stage: `git init -q w && rm w/.git/HEAD && ` + fsm + ` >> w/.git/config`,
		finish: "echo 'ref: refs/heads/master' > w/.git/HEAD", hostDir: "/w", setAside: "/w/.git/config", setAsideBy: 1},
	// Hooks written under another directory name, renamed into a new
	// repository's .git after the recompile (the second review).
	{name: "hooks_renamed", stage: `mkdir -p .cache/x/hk && printf '#!/bin/sh\ntouch {m}\n' > .cache/x/hk/post-commit && chmod +x .cache/x/hk/post-commit`,
		finish: "git init -q app && rm -rf app/.git/hooks && mv .cache/x/hk app/.git/hooks", hostDir: "/app",
		setAside: "/app/.git/hooks/post-commit", setAsideBy: 2},
	// A fake git directory staged inside .git (the walk does not enter
	// it), and a .git file naming a directory that does not exist yet;
	// the second command renames the fake onto that name (the third
	// review).
	{name: "renamed_onto_gitfile_target", stage: `mkdir -p .git/y/refs/heads .git/y/objects && echo 'ref: refs/heads/master' > .git/y/HEAD && printf '[core]\n\tbare = false\n\tfsmonitor = "touch {m}"\n' > .git/y/config && mkdir wt && echo 'gitdir: ../.git/y2' > wt/.git`,
		finish: "mv .git/y .git/y2", hostDir: "/wt", setAside: "/.git/y2/config", setAsideBy: 2},
}

// H9: code staged across a recompile is set aside by the scan after
// the command that could be caught (stagedAcross), and host git (status,
// commit) in the repository then runs nothing. Control: the same two
// commands with that command run by bwrap alone (no scan): host git
// runs the staged code.
func testGitStagedAcrossRecompile(t *testing.T, f *fixture) {
	for _, a := range stagedAcross {
		t.Run(a.name, func(t *testing.T) {
			g := *f
			g.t = t
			for _, control := range []bool{false, true} {
				p := g.expand("{base}/staged-" + a.name)
				if control {
					p += "-control"
				}
				m := p + ".ran"
				x := strings.NewReplacer("{p}", p, "{m}", m)
				if r := g.exec(call{argv: []string{"/bin/sh", "-c", gitEnvSetup + x.Replace(gitInit) + "true"}, dir: "{base}"}); r.code != 0 {
					t.Fatalf("setup: %v", r)
				}
				run := func(step int, script string) {
					inv, _ := g.compile("cwd: "+p+"\n", call{dir: p})
					script = gitEnvSetup + x.Replace(script)
					if control && step == a.setAsideBy {
						r := g.exec(call{argv: append(append([]string{bwrapPath}, rawArgs(t, inv)...), "--", "/bin/sh", "-c", script), dir: p})
						g.wantCode(r, 0)
						return
					}
					r := g.exec(call{argv: []string{tool("bwrun"), inv, "--", "/bin/sh", "-c", script}, dir: p})
					g.wantCode(r, 0)
					if step == a.setAsideBy {
						g.wantStderr(r, "set aside as", p+a.setAside)
					}
				}
				run(1, a.stage)
				time.Sleep(1200 * time.Millisecond) // past the scan's slack: the staged files predate the recompile
				run(2, a.finish)
				os.Remove(m)
				g.exec(call{argv: []string{"/bin/sh", "-c", gitEnvSetup + "git status >/dev/null 2>&1; git commit -q --allow-empty -m host >/dev/null 2>&1; true"}, dir: p + a.hostDir})
				ran := g.hostExists(m)
				switch {
				case !control && ran:
					t.Errorf("host git ran code staged before the recompile")
				case control && !ran:
					t.Errorf("control: host git did not run the staged code after the recompile")
				}
			}
		})
	}
}
