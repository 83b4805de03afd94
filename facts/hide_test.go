package facts

import (
	"fmt"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/settings"
)

func TestHideExpansionIsBounded(t *testing.T) {
	tree := Tree{}
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
	tree := Tree{
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
	tree := Tree{
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
