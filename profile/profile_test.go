package profile

import (
	"testing"

	"github.com/bwpolicy/bwpolicy/diag"
)

// TestResolveCopies: Resolve decodes a profile once per Set, and every
// caller gets its own copy with its own limits.
func TestResolveCopies(t *testing.T) {
	set, ds := Builtin()
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	mem := int64(1024)
	a, err := set.Resolve("workspace", &mem, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	a.HiddenHome[".ssh"] = false
	a.Namespaces["net"] = false
	a.UnsetEnv["SSH_AUTH_SOCK"] = false
	a.Pos["name"] = diag.Pos{File: "x"}
	b, err := set.Resolve("workspace", nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !b.HiddenHome[".ssh"] || !b.UnsetEnv["SSH_AUTH_SOCK"] || b.Pos["name"].File == "x" {
		t.Errorf("a caller's change reached another caller's profile: %+v", b)
	}
	if _, ok := b.Namespaces["net"]; ok && !b.Namespaces["net"] {
		t.Errorf("namespaces changed: %v", b.Namespaces)
	}
	if a.Defaults.MemoryMB != 1024 || b.Defaults.MemoryMB != 256 {
		t.Errorf("limits: %d and %d, want 1024 and 256", a.Defaults.MemoryMB, b.Defaults.MemoryMB)
	}
	if _, err := set.Resolve("nope", nil, nil, nil); err == nil {
		t.Error("an unknown profile resolved")
	}
}
