package facts

import (
	"github.com/bwpolicy/bwpolicy/facts/factstest"

	"slices"
	"testing"
)

func TestGitHooksPath(t *testing.T) {
	cases := []struct {
		in   string
		want string
		set  bool
	}{
		{"[core]\n\thooksPath = .husky/_\n", ".husky/_", true},
		{"[Core]\n\tHooksPath=hooks ; comment\n", "hooks", true},
		{"[core] hookspath = \"my hooks\" # c\n", "my hooks", true},
		{"[core]\n\thooksPath = a\n[core]\n\thooksPath = b\n", "b", true},
		{"[core]\n\tbare = false\n[alias]\n\thooksPath = x\n", "", false},
		{"[remote \"origin\"]\n\thooksPath = x\n", "", false},
		{"# [core]\n\thooksPath = x\n", "", false},
		{"[core]\n\thooksPath = \"a\\\"b\\\\c\"\n", "a\"b\\c", true},
		{"[core]\n\thooksPath\n", "", false},
		{"[core]\n\thooksPath =\n", "", true},
	}
	for _, c := range cases {
		got, set := gitHooksPath([]byte(c.in))
		if got != c.want || set != c.set {
			t.Errorf("%q: %q, %v; want %q, %v", c.in, got, set, c.want, c.set)
		}
	}
}

// TestHooksPathProtected: a core.hooksPath inside the working directory
// (the repository's, else the user's global one; relative to the
// worktree, or "~/") is protected; one outside it, or the worktree
// itself, is not.
func TestHooksPathProtected(t *testing.T) {
	cases := []struct {
		tree factstest.Tree
		want string
	}{
		{factstest.Tree{"/h/proj/.git/config": {Kind: "file", Content: "[core]\n hooksPath = .hooks\n"}, "/h/proj/.hooks": {Kind: "dir"}}, "/h/proj/.hooks"},
		{factstest.Tree{"/h/proj/.git/config": {Kind: "file", Content: "[core]\n hooksPath = ~/proj/tools/hooks\n"}, "/h/proj/tools/hooks": {Kind: "dir"}}, "/h/proj/tools/hooks"},
		{factstest.Tree{"/h/proj/.git/config": {Kind: "file"}, "/h/dot/gitconfig": {Kind: "file", Content: "[core]\nhooksPath = githooks\n"},
			"/h/.gitconfig": {Kind: "symlink", Target: "dot/gitconfig"}, "/h/proj/githooks": {Kind: "dir"}}, "/h/proj/githooks"},
		{factstest.Tree{"/h/proj/.git/config": {Kind: "file", Content: "[core]\n hooksPath = /srv/hooks\n"}, "/srv/hooks": {Kind: "dir"}, "/h/proj/x": {Kind: "file"}}, ""},
		{factstest.Tree{"/h/proj/.git/config": {Kind: "file", Content: "[core]\n hooksPath = .\n"}}, ""},
		{factstest.Tree{"/h/proj/.git/config": {Kind: "file", Content: "[core]\n hooksPath = missing\n"}}, ""},
		// Set where git also reads it: a .git file's target, the common
		// directory, config.worktree, an include target.
		{factstest.Tree{"/h/proj/.git": {Kind: "file", Content: "gitdir: .bare\n"}, "/h/proj/.bare/config": {Kind: "file", Content: "[core]\n hooksPath = gh\n"},
			"/h/proj/gh": {Kind: "dir"}}, "/h/proj/gh"},
		{factstest.Tree{"/h/proj/.git/config": {Kind: "file"}, "/h/proj/.git/commondir": {Kind: "file", Content: "../common\n"},
			"/h/proj/common/config": {Kind: "file", Content: "[core]\n hooksPath = ch\n"}, "/h/proj/ch": {Kind: "dir"}}, "/h/proj/ch"},
		{factstest.Tree{"/h/proj/.git/config": {Kind: "file"}, "/h/proj/.git/config.worktree": {Kind: "file", Content: "[core]\nhooksPath=wh\n"},
			"/h/proj/wh": {Kind: "dir"}}, "/h/proj/wh"},
		{factstest.Tree{"/h/proj/.git/config": {Kind: "file", Content: "[include]\n path = ../inc.cfg\n"}, "/h/proj/inc.cfg": {Kind: "file", Content: "[core]\n hooksPath = ih\n"},
			"/h/proj/ih": {Kind: "dir"}}, "/h/proj/ih"},
		// "~NAME/" is NAME's home directory, as git's getpwnam finds it
		// (here inside the working directory); a name no user has makes
		// git die, so nothing is bound for it.
		{factstest.Tree{"/h/proj/.git/config": {Kind: "file", Content: "[core]\n hooksPath = ~bob/hooks\n"}, "/h/proj/people/bob/hooks": {Kind: "dir"}}, "/h/proj/people/bob/hooks"},
		{factstest.Tree{"/h/proj/.git/config": {Kind: "file", Content: "[include]\n path = ~bob/inc.cfg\n"}, "/h/proj/people/bob/inc.cfg": {Kind: "file", Content: "[core]\n hooksPath = ih\n"},
			"/h/proj/ih": {Kind: "dir"}}, "/h/proj/ih"},
		{factstest.Tree{"/h/proj/.git/config": {Kind: "file", Content: "[core]\n hooksPath = ~nosuch/hooks\n"}, "/h/proj/~nosuch/hooks": {Kind: "dir"}}, ""},
		{factstest.Tree{"/h/.gitconfig": {Kind: "file", Content: "[core]\n hooksPath = ~\n"}, "/h/proj/.git/config": {Kind: "file"}}, ""},
	}
	old := lookupHome
	lookupHome = func(n string) (string, bool) { return "/h/proj/people/bob", n == "bob" }
	t.Cleanup(func() { lookupHome = old })
	for i, c := range cases {
		g := &gatherer{fs: c.tree, observed: map[string]Stat{}, walked: map[string]*Walked{}}
		f := &Facts{Home: "/h", Cwd: Cwd{Exists: true, Real: "/h/proj"}}
		got, looked := g.protectedEntries(nil, f, true, nil, false)
		var hp []string
		for _, p := range got {
			if p.Name == "core.hooksPath" {
				hp = append(hp, p.Path)
			}
		}
		if (c.want == "" && len(hp) != 0) || (c.want != "" && (len(hp) != 1 || hp[0] != c.want)) {
			t.Errorf("case %d: protected hooks paths %q, want %q", i, hp, c.want)
		}
		if c.want != "" && !slices.Contains(looked, c.want) {
			t.Errorf("case %d: %s not recorded", i, c.want)
		}
	}
}
