package schema

import (
	"slices"
	"testing"
)

// TestKnownKeys: the keys the schema allows are found at the top, in a
// nested object, and in an array's items through a $ref.
func TestKnownKeys(t *testing.T) {
	for _, c := range []struct {
		path []any
		has  string
	}{
		{nil, "memory_mb"}, {[]any{"seccomp"}, "allow"}, {[]any{"binds", 0}, "readonly"},
		{[]any{"network"}, "udp"}, {[]any{"env"}, "strip"}, {[]any{"protect"}, "git"},
	} {
		if keys := knownKeys(c.path); !slices.Contains(keys, c.has) {
			t.Errorf("knownKeys(%v) = %v, want it to hold %q", c.path, keys, c.has)
		}
	}
	if keys := knownKeys([]any{"memory_mb"}); len(keys) != 0 {
		t.Errorf("a scalar has keys: %v", keys)
	}
	for name, want := range map[string]string{
		"memroy_mb": `; did you mean "memory_mb"?`, "zzzz": "", "plugin:memroy_mb": "",
	} {
		if got := suggestKey(name, nil); got != want {
			t.Errorf("suggestKey(%q) = %q, want %q", name, got, want)
		}
	}
}
