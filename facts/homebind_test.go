package facts

import (
	"github.com/bwpolicy/bwpolicy/facts/factstest"

	"slices"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/settings"
)

// TestBindWholeLayoutDir: a read-write bind of all of ~/.config at its
// own path replaces the layout's tmpfs there (not rebuilt, an entry of
// HOME instead), as Hermes' backend accepts it. While a denied path below
// it is absent a command could create it: listed as creatable (refused).
// With every denied path below it present, none is creatable and each
// present one is masked.
func TestBindWholeLayoutDir(t *testing.T) {
	p := builtinProfile(t, "workspace")
	rw := false
	s := &settings.Settings{Binds: []settings.Bind{{Src: "/home/u/.config", Readonly: &rw}}}
	tree := factstest.Tree{"/home/u/proj": {Kind: "dir"}, "/home/u/.config/git": {Kind: "dir"}, "/run/user/1000": {Kind: "dir"}}
	gather := func() *Facts {
		h := &Host{FS: tree, UID: 1000, Home: "/home/u", HermesHome: "/home/u/.hermes", ProcessCwd: "/home/u/proj", Env: map[string]string{}}
		return Gather(h, s, p)
	}
	f := gather()
	if slices.Contains(f.HomeLayout.Dirs, "/home/u/.config") {
		t.Errorf("~/.config bound whole is still rebuilt: %q", f.HomeLayout.Dirs)
	}
	if len(f.CreatableDenied) == 0 || !strings.HasPrefix(f.CreatableDenied[0].Path, "/home/u/.config/") {
		t.Fatalf("absent denied paths below the read-write bind are not creatable: %+v", f.CreatableDenied)
	}
	n := 0
	for _, h := range f.Hidden {
		if h.Kind == "absent" && Within(h.Entry, "/home/u/.config") && h.Entry != "/home/u/.config" {
			tree[h.Entry] = Stat{Kind: "dir"}
			n++
		}
	}
	if n < 10 {
		t.Fatalf("only %d denied paths below ~/.config", n)
	}
	f = gather()
	for _, c := range f.CreatableDenied {
		if Within(c.Path, "/home/u/.config") {
			t.Errorf("with every denied path present, %s is still creatable", c.Path)
		}
	}
	masked := false
	for _, m := range f.Masks {
		masked = masked || m.Path == "/home/u/.config/gh"
	}
	if !masked {
		t.Errorf("~/.config/gh below the bind is not masked: %+v", f.Masks)
	}
}
