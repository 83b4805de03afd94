package runtime

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

func TestApplyChdir(t *testing.T) {
	home := varTempDir(t, "chdir-test-")
	for _, d := range []string{"proj/src", "notes", ".ssh", "elsewhere/sub"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	h := func(p string) string { return filepath.Join(home, p) }
	base := func() *invocation.Invocation {
		return &invocation.Invocation{
			Bwrap: invocation.Bwrap{Args: []string{"--ro-bind", "/", "/", "--proc", "/proc", "--tmpfs", "/tmp",
				"--tmpfs", h(".ssh"), "--bind", h("proj"), h("proj"), "--ro-bind", h("elsewhere"), h("mnt"),
				"--chdir", h("proj"), "--info-fd", "3"}},
			Chdir:    h("proj"),
			Writable: []string{"/tmp", h("proj")},
			Hidden:   []string{h(".ssh")},
		}
	}
	for _, c := range []struct {
		dir, want, note string
	}{
		{h("proj/src"), h("proj/src"), ""},
		{h("proj/src/"), h("proj/src"), ""},
		{h("proj"), h("proj"), ""},
		{h("notes"), h("notes"), "read-only"},
		{h("mnt/sub"), h("mnt/sub"), "read-only"}, // shows elsewhere/sub
		{h("mnt/nope"), h("proj"), "no such directory"},
		{h(".ssh"), h("proj"), "hides it"},
		{h("notes/../.ssh"), h("proj"), "hides it"},
		{"/tmp", h("proj"), "private /tmp"},
		{"/proc/1", h("proj"), "private /proc"},
		{h("proj/missing"), h("proj"), "no such directory"},
	} {
		inv := base()
		note, err := ApplyChdir(inv, c.dir)
		if err != nil {
			t.Fatalf("%s: %v", c.dir, err)
		}
		got := ""
		for i, a := range inv.Bwrap.Args {
			if a == "--chdir" {
				got = inv.Bwrap.Args[i+1]
			}
		}
		if got != c.want || inv.Chdir != c.want || (c.note == "") != (note == "") || !strings.Contains(note, c.note) {
			t.Errorf("%s: --chdir %s (Chdir %s), note %q; want %s, note %q", c.dir, got, inv.Chdir, note, c.want, c.note)
		}
		if n := strings.Count(strings.Join(inv.Bwrap.Args, " "), "--chdir"); n != 1 || len(inv.Bwrap.Args) != len(base().Bwrap.Args) {
			t.Errorf("%s: arguments changed beyond --chdir's value: %q", c.dir, inv.Bwrap.Args)
		}
	}
	if _, err := ApplyChdir(base(), "rel/dir"); err == nil {
		t.Error("relative --chdir accepted")
	}
	inv := base()
	inv.Bwrap.Args = inv.Bwrap.Args[:len(inv.Bwrap.Args)-4]
	inv.Bwrap.Args = append(inv.Bwrap.Args, "--info-fd", "3")
	if _, err := ApplyChdir(inv, h("proj/src")); err == nil {
		t.Error("an invocation without --chdir accepted")
	}
}

// TestApplyChdirHomeLayout: `--chdir ~` (and ~/.config) under the home
// layout runs there, read-only: the layout's tmpfs at exactly a rebuilt
// directory shows it. A path inside the tmpfs that is not bound back
// (a left-out entry's name) still falls back, as do the rebuilt
// directories of an invocation that does not declare them.
func TestApplyChdirHomeLayout(t *testing.T) {
	home, err := os.MkdirTemp("/var/tmp", "chdir-home-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	for _, d := range []string{"proj", ".config/git", ".zz"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	h := func(p string) string { return filepath.Join(home, p) }
	base := func(declared bool) *invocation.Invocation {
		inv := &invocation.Invocation{
			Bwrap: invocation.Bwrap{Args: []string{"--ro-bind", "/", "/", "--tmpfs", home, "--bind", h("proj"), h("proj"),
				"--tmpfs", h(".config"), "--ro-bind", h(".config/git"), h(".config/git"), "--remount-ro", h(".config"),
				"--remount-ro", home, "--chdir", h("proj")}},
			Chdir:    h("proj"),
			Writable: []string{"/tmp", h("proj")},
		}
		if declared {
			inv.Home = &invocation.HomeLayout{Dir: home, Dirs: []string{home, h(".config")}}
		}
		return inv
	}
	for _, c := range []struct {
		dir, want, note string
		declared        bool
	}{
		{home, home, "read-only", true},
		{h(".config"), h(".config"), "read-only", true},
		{h(".config/git"), h(".config/git"), "read-only", true},
		{h(".zz"), h("proj"), "private " + home, true},
		{home, h("proj"), "private " + home, false},
	} {
		inv := base(c.declared)
		note, err := ApplyChdir(inv, c.dir)
		if err != nil {
			t.Fatalf("%s: %v", c.dir, err)
		}
		if inv.Chdir != c.want || !strings.Contains(note, c.note) {
			t.Errorf("%s (declared %v): Chdir %s, note %q; want %s, note %q", c.dir, c.declared, inv.Chdir, note, c.want, c.note)
		}
	}
}
