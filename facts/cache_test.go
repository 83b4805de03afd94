package facts

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/bwpolicy/bwpolicy/profile"
	"github.com/bwpolicy/bwpolicy/settings"
)

// TestGatherKeyCoversSettings: every field of settings.Settings is
// either part of the cache key (gatherInput) or listed as one Gather
// does not read (gatherIgnores); a new settings field fails here until
// it is judged.
func TestGatherKeyCoversSettings(t *testing.T) {
	keyed := map[string]bool{}
	for f := range reflect.TypeFor[gatherInput]().Fields() {
		keyed[f.Name] = true
	}
	for f := range reflect.TypeFor[settings.Settings]().Fields() {
		if keyed[f.Name] == slices.Contains(gatherIgnores, f.Name) {
			t.Errorf("settings field %s: in the key %v, ignored %v: want exactly one", f.Name, keyed[f.Name], slices.Contains(gatherIgnores, f.Name))
		}
	}
}

// TestGatherIgnoresWhatTheKeyLeavesOut: settings that differ only in the
// fields gatherIgnores names (limits, environment, seccomp and network
// policies, …), and a profile whose limits differ, give the same facts,
// so one cached gathering serves them all; the cache hands out one
// pointer for them and another for settings that differ in a keyed field.
func TestGatherIgnoresWhatTheKeyLeavesOut(t *testing.T) {
	set, ds := profile.Builtin()
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	n := func(v int64) *int64 { return &v }
	host := &Host{FS: memoTree(), UID: 1000, Home: "/home/u", HermesHome: "/home/u/.hermes", ProcessCwd: "/home/u/proj",
		Env: map[string]string{"PATH": "/usr/bin"}}
	base := &settings.Settings{Binds: []settings.Bind{{Src: "/home/u/link/a"}}, Hide: []string{"*.pem"}}
	p, _ := set.Resolve("workspace", nil, nil, nil)
	other := *base
	other.MemoryMB, other.CPUSeconds, other.MaxProcs, other.TmpMB = n(999), n(7), n(3), n(5)
	other.DegradedMode, other.SandboxDir = "fail", "/x"
	other.Env = &settings.EnvPolicy{}
	other.Seccomp = &settings.SeccompPolicy{}
	other.Network = &settings.NetworkPolicy{}
	p2, _ := set.Resolve("workspace", n(999), n(7), n(3))
	if got, want := Gather(host, &other, p2), Gather(host, base, p); !reflect.DeepEqual(got, want) {
		t.Fatalf("facts differ in a field the key leaves out:\n%+v\nwant\n%+v", got, want)
	}
	c := NewCache()
	a, b := c.Gather(host, base, p), c.Gather(host, &other, p2)
	if a != b {
		t.Error("settings with one key were gathered twice")
	}
	moved := *base
	moved.Cwd = "/home/u"
	if c.Gather(host, &moved, p) == a {
		t.Error("settings with another working directory share the facts")
	}
	if !c.Holds(a) || c.Holds(Gather(host, base, p)) || c.Holds(nil) || (*Cache)(nil).Holds(a) || NewCache().Holds(a) {
		t.Error("Holds: the cache's facts are not held, or other facts are")
	}
}

// TestCanonicalHomePath: every spelling of the home (and of a path under
// it) is written one way; other paths are left as they are.
func TestCanonicalHomePath(t *testing.T) {
	for in, want := range map[string]string{
		"~": "~/", "~/": "~/", "~//": "~/", "~/.": "~/", "~/./": "~/", "$HOME": "~/", "$HOME/": "~/", "${HOME}": "~/", "${HOME}/.": "~/",
		"~/.ssh": "~/.ssh", "$HOME/.ssh": "~/.ssh", "${HOME}/.aws/": "~/.aws/", "~//x/../y": "~/y", "~/x/..": "~/",
		"/home/u/": "/home/u/", "/home/u/.": "/home/u", "/a//b": "/a/b", "/": "/",
		"~user/x": "~user/x", "$HOMEDIR/x": "$HOMEDIR/x", "secrets/": "secrets/", "*.pem": "*.pem", "$HOME.bak": "$HOME.bak",
	} {
		if got := CanonicalHomePath(in); got != want {
			t.Errorf("CanonicalHomePath(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCacheIsBounded: past maxCached distinct keys a Cache gathers
// without remembering: it holds maxCached facts, and the facts of a new
// key are fresh each time and not held (so nothing keyed by them is
// remembered either).
func TestCacheIsBounded(t *testing.T) {
	set, ds := profile.Builtin()
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	p, _ := set.Resolve("workspace", nil, nil, nil)
	host := &Host{FS: memoTree(), UID: 1000, Home: "/home/u", HermesHome: "/home/u/.hermes", ProcessCwd: "/home/u/proj",
		Env: map[string]string{"PATH": "/usr/bin"}}
	c := NewCache()
	key := func(i int) *settings.Settings { return &settings.Settings{Hide: []string{fmt.Sprintf("f%d.pem", i)}} }
	for i := 0; i < maxCached+5; i++ {
		c.Gather(host, key(i), p)
	}
	if len(c.m) != maxCached || len(c.held) != maxCached {
		t.Fatalf("%d keys and %d facts held, want %d", len(c.m), len(c.held), maxCached)
	}
	a, b := c.Gather(host, key(maxCached+1), p), c.Gather(host, key(maxCached+1), p)
	if a == b || c.Holds(a) {
		t.Error("a key past the bound was remembered")
	}
	if first := c.Gather(host, key(0), p); !c.Holds(first) || first != c.Gather(host, key(0), p) {
		t.Error("a key within the bound was not remembered")
	}
}
