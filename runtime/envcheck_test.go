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

// BenchmarkCheckCheckedEnv: bwrun's re-check of every variable the
// compile read, on the network profile's golden invocation (51
// variables, PATH set).
func BenchmarkCheckCheckedEnv(b *testing.B) {
	inv, err := invocation.Load("../golden/profile_network.json")
	if err != nil {
		b.Fatal(err)
	}
	if len(inv.Env.Checked) < 10 {
		b.Fatalf("env.checked has %d variables", len(inv.Env.Checked))
	}
	env := map[string]string{}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	b.ResetTimer()
	for range b.N {
		if err := CheckCheckedEnv(inv, lookup); err != nil {
			b.Fatal(err)
		}
	}
}
