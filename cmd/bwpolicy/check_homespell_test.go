package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// homeSpellings are the ways a settings file can name the whole home:
// "~" and "$HOME" as a shell writes them, with or without a slash or a
// dot, and the home's absolute path.
func homeSpellings(home string) []string {
	return []string{"~", "~/", "~//", "~/.", "$HOME", "$HOME/", "${HOME}", "${HOME}/", home, home + "/", home + "/."}
}

// judgement is what check says about one settings file: each
// diagnostic's rule, severity and settings path, sorted.
func judgement(t *testing.T, dir string, env []string, src string) ([]string, result) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "s.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, env, "check", "--format", "json", "s.yaml")
	var out []string
	for _, d := range checkJSON[map[string]any](t, []byte(r.stdout)) {
		out = append(out, fmt.Sprintf("%v %v %v", d["rule"], d["severity"], d["path"]))
	}
	slices.Sort(out)
	return out, r
}

// TestHomeSpellingsJudgedAlike: every spelling of the whole home is
// judged as "~/" is, in hide (refused: H10, hiding HOME whole), binds
// (the home as the source) and home.allow (refused at the entry), one
// subtest per spelling. Before, hide: ["~"] was accepted silently (a
// file named "~" in the working directory) while "~/" was an error, and
// "$HOME" was a relative name.
func TestHomeSpellingsJudgedAlike(t *testing.T) {
	t.Parallel() // runs bwpolicy in its own directories: side by side with the other slow tests
	env := sandboxEnv(t)
	home := strings.TrimPrefix(env[0], "HOME=")
	dir := t.TempDir()
	for _, field := range []struct {
		name string
		src  func(string) string
	}{
		{"hide", func(p string) string { return fmt.Sprintf("profile: workspace\nhide: [%q]\n", p) }},
		{"binds", func(p string) string { return fmt.Sprintf("profile: workspace\nbinds:\n  - src: %q\n", p) }},
		{"home.allow", func(p string) string { return fmt.Sprintf("profile: workspace\nhome:\n  allow: [%q]\n", p) }},
	} {
		ref, refRun := judgement(t, dir, env, field.src("~/"))
		if len(ref) == 0 || refRun.code != 1 {
			t.Fatalf("%s: ~/ is not refused: %s", field.name, refRun)
		}
		for _, sp := range homeSpellings(home) {
			t.Run(field.name+"/"+sp, func(t *testing.T) {
				got, r := judgement(t, dir, env, field.src(sp))
				if field.name == "home.allow" {
					// The schema refuses "~", "~/" and absolute paths before
					// the rules see them, H10 the variable spellings: an
					// error at the entry either way.
					ok := r.code == 1 && len(got) > 0
					for _, g := range got {
						ok = ok && strings.HasSuffix(g, " error home.allow[0]")
					}
					if !ok {
						t.Errorf("home.allow %q: %v, want errors at home.allow[0] only\n%s", sp, got, r)
					}
					return
				}
				if !slices.Equal(got, ref) || r.code != refRun.code {
					t.Errorf("%s %q judged %v (exit %d), ~/ %v (exit %d)\n%s", field.name, sp, got, r.code, ref, refRun.code, r)
				}
			})
		}
	}
	// The directory above the home, and the root, are refused in hide as
	// the home is.
	for _, sp := range []string{filepath.Dir(home), filepath.Dir(home) + "/", "/"} {
		t.Run("hide/above/"+sp, func(t *testing.T) {
			got, r := judgement(t, dir, env, fmt.Sprintf("profile: workspace\nhide: [%q]\n", sp))
			if r.code != 1 || !slices.Contains(got, "H10 error hide[0]") {
				t.Errorf("hide %q: %v, want H10 at hide[0]\n%s", sp, got, r)
			}
		})
	}
}
