package main

import (
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/internal/testtree"
)

// TestCompileBlamesFlags: a value given by a flag is blamed on the flag,
// not on the settings line it overrode — an unknown --profile, a --cwd
// the rules refuse, a bad --sandbox-id. The control: the same values in
// the settings file are blamed on their lines.
func TestCompileBlamesFlags(t *testing.T) {
	env := sandboxEnv(t)
	dir := testtree.Write(t, map[string]string{
		"config.yaml": "# settings\nprofile: workspace\ncwd: /tmp\n",
		"bad.yaml":    "# settings\nprofile: nosuch\ncwd: /\n",
	})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--profile", "nosuch"}, `command line: --profile: error: profile: unknown profile "nosuch"`},
		{[]string{"--cwd", "/"}, "command line: --cwd: error: cwd: the working directory is /"},
		{[]string{"--sandbox-id", "-x"}, `command line: --sandbox-id: error: --sandbox-id "-x"`},
	} {
		r := run(t, dir, env, append([]string{"compile", "--config", "config.yaml", "-o", "out.json"}, tc.args...)...)
		if r.code == 0 {
			t.Errorf("%v: compiled", tc.args)
		}
		wantContains(t, r, "stderr", tc.want)
		for _, l := range strings.Split(r.stderr, "\n") {
			if strings.Contains(l, "error:") && strings.HasPrefix(l, "config.yaml") {
				t.Errorf("%v: blamed on the settings file:\n%s", tc.args, r.stderr)
			}
		}
	}
	r := run(t, dir, env, "compile", "--config", "bad.yaml", "-o", "out.json")
	wantContains(t, r, "stderr", `bad.yaml:2:10: error: profile: unknown profile "nosuch"`)
	r = run(t, dir, env, "compile", "--config", "bad.yaml", "--profile", "workspace", "-o", "out.json")
	wantContains(t, r, "stderr", "bad.yaml:3:6: error: cwd: the working directory is /")
}
