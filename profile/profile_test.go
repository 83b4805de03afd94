package profile

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// TestMissingRequiredFields: a custom profile that leaves a required
// field unset (cwd_writable; network has a default) gets a plain-words,
// positioned error per field (not
// CUE's "incomplete value bool"), and its other errors are still
// reported beside them (CUE alone reports the missing fields only when
// nothing else is wrong).
func TestMissingRequiredFields(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mine.cue"), []byte("name: \"mine\"\ndescription: \"x\"\nroot: \"read-write\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, ds := Load([]string{dir})
	var got []string
	for _, d := range ds {
		got = append(got, fmt.Sprintf("%d:%d %s %s", d.Pos.Line, d.Pos.Col, d.Path, d.Summary))
	}
	want := []string{
		"1:1 cwd_writable required field cwd_writable is missing: set it in the profile (a bool; #Profile in schema/sandbox.cue says which values)",
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("missing %q in:\n%s", w, strings.Join(got, "\n"))
		}
	}
	conflict := false
	for _, g := range got {
		conflict = conflict || strings.HasPrefix(g, "3:7 ") && strings.Contains(g, "root conflicting values")
		if strings.Contains(g, "incomplete value") {
			t.Errorf("CUE's wording leaked: %s", g)
		}
	}
	if !conflict {
		t.Errorf("the conflict on root is not reported beside the missing fields:\n%s", strings.Join(got, "\n"))
	}
}
