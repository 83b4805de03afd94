package diag

import "testing"

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"a", "", 1}, {"check", "chekc", 1}, {"compile", "compil", 1}, {"kitten", "sitting", 3},
		{"memroy_mb", "memory_mb", 1}, {"ab", "ba", 1}, {"abc", "ca", 3}} {
		if got := EditDistance(c.a, c.b); got != c.d {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}

func TestDidYouMean(t *testing.T) {
	keys := []string{"profile", "memory_mb", "cpu_seconds", "max_procs", "tmp_mb", "binds", "cwd", "hide", "env"}
	for in, want := range map[string]string{
		"memroy_mb":   `; did you mean "memory_mb"?`,
		"memory":      `; did you mean "memory_mb"?`,
		"cpu_second":  `; did you mean "cpu_seconds"?`,
		"maxprocs":    `; did you mean "max_procs"?`,
		"bind":        `; did you mean "binds"?`,
		"cdw":         `; did you mean "cwd"?`,
		"xyzzy":       "",
		"q":           "",
		"unknown_key": "",
	} {
		if got := DidYouMean(in, keys); got != want {
			t.Errorf("DidYouMean(%q) = %q, want %q", in, got, want)
		}
	}
}
