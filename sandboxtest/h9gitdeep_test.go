package sandboxtest

import (
	"os"
	"strings"
	"testing"
)

// hookScript writes an executable post-commit hook that touches {m}.
const hookScript = `printf '#!/bin/sh\ntouch {m}\n' > %s && chmod +x %s`

// gitCompileTimeBind is one repository that exists when compiling and
// whose code files the compile binds read-only (H9): plant tries to
// write them from inside the sandbox, hostDir (below {p}) is where host
// git runs afterwards, and allow is the protect.allow list that turns
// the protection off for the control.
type gitCompileTimeBind struct {
	name, setup, plant, hostDir, allow string
}

var gitCompileTimeBinds = []gitCompileTimeBind{
	// A repository two levels below the working directory: its config
	// and hooks are read-only while the command runs.
	{name: "deep_repo", setup: gitInit + "git init -q vendor/a && git -C vendor/a commit -q --allow-empty -m v",
		plant: `{ ` + fsm + ` >> vendor/a/.git/config; } 2>/dev/null && echo WROTE config; ` +
			`{ ` + strings.ReplaceAll(hookScript, "%s", "vendor/a/.git/hooks/post-commit") + `; } 2>/dev/null && echo WROTE hook; true`,
		hostDir: "/vendor/a", allow: "[.git/config, .git/hooks]"},
	// A submodule whose configuration (.git/modules/lib/config) sets a
	// relative core.hooksPath: relative to the submodule's worktree
	// (core.worktree), lib/.githooks is read-only while the command runs.
	{name: "submodule_hooks_path", setup: gitInit + "git init -q {p}-lib && git -C {p}-lib commit -q --allow-empty -m l && git -c protocol.file.allow=always submodule -q add {p}-lib lib && git commit -qm sub && git -C lib config core.hooksPath .githooks && mkdir lib/.githooks",
		plant:   `{ ` + strings.ReplaceAll(hookScript, "%s", "lib/.githooks/post-commit") + `; } 2>/dev/null && echo WROTE hook; true`,
		hostDir: "/lib", allow: "[core.hooksPath]"},
}

// H9 (#10 §1): what exists at compile time deeper than one level below
// the working directory, and a submodule's relative core.hooksPath, is
// bound read-only, so a command cannot plant code there even while it
// runs: the writes fail inside the sandbox, and real host git (status,
// commit) run afterwards runs nothing. The control compiles with
// protect.allow naming the entries and runs the same arguments with
// bwrap alone (no post-command scan): the writes succeed and host git
// runs the planted code.
func testGitCompileTimeBinds(t *testing.T, f *fixture) {
	for _, a := range gitCompileTimeBinds {
		t.Run(a.name, func(t *testing.T) {
			g := *f
			g.t = t
			for _, protected := range []bool{true, false} {
				p := f.expand("{base}/" + a.name)
				settings := ""
				if !protected {
					p += "-control"
					settings = "protect:\n  allow: " + a.allow + "\n"
				}
				m := p + ".ran"
				x := strings.NewReplacer("{p}", p, "{m}", m)
				r := g.exec(call{argv: []string{"/bin/sh", "-c", gitEnvSetup + x.Replace(a.setup)}, dir: "{base}"})
				if r.code != 0 {
					t.Fatalf("setup: %v", r)
				}
				inv, _ := g.compile("cwd: "+p+"\n"+settings, call{dir: p})
				argv := []string{tool("bwrun"), inv, "--"}
				if !protected {
					argv = append([]string{bwrapPath}, rawArgs(t, inv)...)
				}
				r = g.exec(call{argv: append(argv, "/bin/sh", "-c", gitEnvSetup+x.Replace(a.plant)), dir: p})
				g.wantCode(r, 0)
				wrote := strings.Contains(r.stdout, "WROTE")
				switch {
				case protected && wrote:
					t.Errorf("the command wrote git code files bound read-only: %v", r)
				case !protected && !wrote:
					t.Errorf("control: the command could not write them with the protection off: %v", r)
				}
				r = g.exec(call{argv: []string{"/bin/sh", "-c", gitEnvSetup + "git status >/dev/null 2>&1; git commit -q --allow-empty -m host >/dev/null 2>&1; true"}, dir: p + a.hostDir})
				_, err := os.Stat(m)
				switch ran := err == nil; {
				case protected && ran:
					t.Errorf("host git ran the planted code after bwrun returned")
				case !protected && !ran:
					t.Errorf("control: host git did not run the planted code")
				}
			}
		})
	}
}
