package sandboxtest

import (
	"os"
	"strings"
	"testing"
)

// startupAttack is a file a command plants in the writable set that
// something on the host runs later without being asked (H9): settings
// are added to the compile's, setup runs on the host before compiling,
// plant in the sandbox (in {proj}); planted is the path (expanded) that
// must not be left where the host reads it. {m} is a marker path.
type startupAttack struct {
	name, settings, setup, plant, planted string
}

var startupAttacks = []startupAttack{
	// Protected names absent at compile time (before: a warning, and the
	// file stayed).
	{name: "envrc_created", plant: `echo 'touch {m}' > .envrc`, planted: "{proj}/.envrc"},
	// VS Code's root-level dev container file: initializeCommand runs
	// on the host.
	{name: "devcontainer_json", plant: `echo '{"initializeCommand": "touch {m}"}' > .devcontainer.json`, planted: "{proj}/.devcontainer.json"},
	// Claude Code's local settings: hooks run on the host.
	{name: "claude_settings_local", setup: `mkdir -p {proj}/.claude`,
		plant:   `echo '{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "touch {m}"}]}]}}' > .claude/settings.local.json`,
		planted: "{proj}/.claude/settings.local.json"},
	// A read-write bind inside the home holds protected names of the
	// home: ~/.config/systemd/user under a bind of ~/.config/systemd.
	{name: "systemd_user_in_bind", setup: `mkdir -p {home}/.config/systemd`,
		settings: "home:\n  allow: [.config/systemd]\nbinds:\n  - {src: {home}/.config/systemd, readonly: false}\n",
		plant:    `mkdir -p {home}/.config/systemd/user/default.target.wants && printf '[Service]\nExecStart=/bin/touch {m}\n' > {home}/.config/systemd/user/x.service`,
		planted:  "{home}/.config/systemd/user"},
}

// H9: a start-up file a command plants where none was when compiling
// (a protected name recorded absent, in the working directory or under a
// read-write bind inside the home) is set aside after the command, the
// invocation goes stale, and nothing is left where the host reads it.
// Control: the same sandbox arguments run with bwrap directly (no
// post-command scan) leave the file there.
func testStartupPlanted(t *testing.T, f *fixture) {
	for _, a := range startupAttacks {
		t.Run(a.name, func(t *testing.T) {
			g := *f
			g.t = t
			for _, protected := range []bool{true, false} {
				x := strings.NewReplacer("{m}", g.expand("{base}/"+a.name+".ran"))
				planted := g.expand(a.planted)
				if a.setup != "" {
					if r := g.exec(call{argv: []string{"/bin/sh", "-c", g.expand(a.setup)}}); r.code != 0 {
						t.Fatalf("setup: %v", r)
					}
				}
				inv, _ := g.compile("cwd: {proj}\n"+a.settings, call{dir: g.proj})
				plant := []string{"/bin/sh", "-c", g.expand(x.Replace(a.plant))}
				if protected {
					r := g.exec(call{argv: append([]string{tool("bwrun"), inv, "--"}, plant...), dir: g.proj})
					g.wantCode(r, 0)
					g.wantStderr(r, "set aside as", planted)
				} else {
					r := g.exec(call{argv: append(append([]string{bwrapPath}, rawArgs(t, inv)...), append([]string{"--"}, plant...)...), dir: g.proj})
					g.wantCode(r, 0)
				}
				_, err := os.Lstat(planted)
				switch left := err == nil; {
				case protected && left:
					t.Errorf("%s is still where the host reads it after bwrun returned", planted)
				case !protected && !left:
					t.Errorf("control: %s was not planted without the scan", planted)
				}
				if protected {
					r := g.exec(call{argv: []string{tool("bwrun"), inv, "--", "/bin/true"}, dir: g.proj})
					g.wantCode(r, 125)
				}
				os.RemoveAll(planted)
			}
		})
	}
}
