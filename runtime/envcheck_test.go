package runtime

import (
	"errors"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// TestCheckCheckedEnv: every variable the invocation lists is re-checked,
// whichever protection read it: the same values pass; a value changed,
// one set that was unset, and one unset that was set are each stale.
func TestCheckCheckedEnv(t *testing.T) {
	inv := &invocation.Invocation{Env: invocation.Env{Checked: map[string]string{
		"TOOLX_CONFIG_DIR": invocation.EnvDigest("/home/u/.toolx"),
		"ZDOTDIR":          "",
		"PATH":             invocation.EnvDigest("/usr/bin:/bin"),
	}}}
	env := func(kv map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := kv[k]; return v, ok }
	}
	same := map[string]string{"TOOLX_CONFIG_DIR": "/home/u/.toolx", "PATH": "/usr/bin:/bin", "OTHER": "x"}
	if err := CheckCheckedEnv(inv, env(same)); err != nil {
		t.Fatalf("same environment refused: %v", err)
	}
	for name, kv := range map[string]map[string]string{
		"TOOLX_CONFIG_DIR": {"TOOLX_CONFIG_DIR": "/home/u/proj/.toolx", "PATH": "/usr/bin:/bin"},
		"ZDOTDIR":          {"TOOLX_CONFIG_DIR": "/home/u/.toolx", "PATH": "/usr/bin:/bin", "ZDOTDIR": "/home/u/proj"},
		"PATH":             {"TOOLX_CONFIG_DIR": "/home/u/.toolx"},
	} {
		err := CheckCheckedEnv(inv, env(kv))
		var stale *StaleError
		if !errors.As(err, &stale) || len(stale.Mismatches) != 1 || stale.Mismatches[0].EnvVar != name ||
			!strings.Contains(stale.Error(), "$"+name) {
			t.Errorf("$%s changed: got %v, want a stale error naming it", name, err)
		}
	}
}
