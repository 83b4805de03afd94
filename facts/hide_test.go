package facts

import (
	"github.com/bwpolicy/bwpolicy/facts/factstest"

	"fmt"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/settings"
)

func TestHideExpansionIsBounded(t *testing.T) {
	tree := factstest.Tree{}
	for i := 0; i <= MaxHideVisits; i++ {
		tree[fmt.Sprintf("/w/d%d/f%d.txt", i%100, i)] = Stat{Kind: invocation.KindFile}
	}
	g := &gatherer{fs: tree, observed: map[string]Stat{}, walked: map[string]*Walked{}}
	_, errs := expandHide(g, &Host{Home: "/home/u"}, &settings.Settings{Hide: []string{"**/*.pem"}}, "/w")
	if len(errs) != 1 || !strings.Contains(errs[0].Message, "narrow the pattern") {
		t.Fatalf("want one bound error, got %+v", errs)
	}
}

func TestHideDoesNotFollowSymlinkedDirs(t *testing.T) {
	tree := factstest.Tree{
		"/w/a/x.pem":     {Kind: invocation.KindFile},
		"/w/link":        {Kind: invocation.KindSymlink, Target: "/outside"},
		"/outside/y.pem": {Kind: invocation.KindFile},
	}
	g := &gatherer{fs: tree, observed: map[string]Stat{}, walked: map[string]*Walked{}}
	hs, errs := expandHide(g, &Host{Home: "/home/u"}, &settings.Settings{Hide: []string{"**/*.pem"}}, "/w")
	if len(errs) != 0 || len(hs) != 1 || hs[0].Path != "/w/a/x.pem" {
		t.Fatalf("got %+v %+v", hs, errs)
	}
	if g.walked["/w"] == nil || !g.walked["/w"].NewDirs || g.walked["/w/a"] == nil || g.walked["/outside"] != nil {
		t.Fatalf("walked %v", g.walked)
	}
}

func TestResolve(t *testing.T) {
	tree := factstest.Tree{
		"/home/u/.ssh":         {Kind: invocation.KindSymlink, Target: "dotfiles/ssh"},
		"/home/u/dotfiles/ssh": {Kind: invocation.KindDir},
		"/loop":                {Kind: invocation.KindSymlink, Target: "/loop"},
	}
	real, link, err := Resolve(tree, "/home/u/.ssh/id_rsa")
	if err != nil || !link || real != "/home/u/dotfiles/ssh/id_rsa" {
		t.Fatalf("got %q %v %v", real, link, err)
	}
	if _, _, err := Resolve(tree, "/loop/x"); err == nil {
		t.Fatal("a symlink loop resolved")
	}
}

// TestResolveAgreesWithLinkWalk: Resolve's prefix walk (no symlink on
// the way) and its component walk give the same answer for every path of
// a tree with links, absent tails and files in the middle.
func TestResolveAgreesWithLinkWalk(t *testing.T) {
	tree := factstest.Tree{
		"/home/u/.ssh/id_rsa":  {Kind: "file"},
		"/home/u/dotfiles/ssh": {Kind: "dir"},
		"/home/u/.sshlink":     {Kind: "symlink", Target: "dotfiles/ssh"},
		"/home/u/abs":          {Kind: "symlink", Target: "/etc"},
		"/etc/passwd":          {Kind: "file"},
		"/loop/x":              {Kind: "symlink", Target: "/loop/x"},
	}
	for _, p := range []string{"/", "/home", "/home/u/.ssh/id_rsa", "/home/u/.ssh/id_rsa/below",
		"/home/u/none/deeper", "/home/u/.sshlink/key", "/home/u/abs/passwd", "/home/u/abs/../x",
		"/home//u/./.ssh", "/loop/x/y", "relative/path"} {
		r1, l1, e1 := Resolve(tree, p)
		r2, l2, e2 := resolveLinks(tree, p)
		if r1 != r2 || l1 != l2 || (e1 == nil) != (e2 == nil) {
			t.Errorf("%s: Resolve = %q %v %v, component walk = %q %v %v", p, r1, l1, e1, r2, l2, e2)
		}
	}
}
