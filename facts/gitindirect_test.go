package facts

import (
	"github.com/bwpolicy/bwpolicy/facts/factstest"

	"fmt"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

func indirectPaths(c *gitIndirect) map[string]bool {
	m := map[string]bool{}
	for _, p := range c.out {
		if !p.Symlink {
			m[p.Path] = true
		}
	}
	return m
}

func TestGitIndirections(t *testing.T) {
	file := func(s string) Stat { return Stat{Kind: invocation.KindFile, Content: s} }
	dir := Stat{Kind: invocation.KindDir}
	tree := factstest.Tree{
		"/w":                      dir,
		"/w/.git":                 file("gitdir: g/wt\n"), // relative to /w
		"/w/g":                    dir,
		"/w/g/wt":                 dir,
		"/w/g/wt/commondir":       file("../c\n"), // relative to /w/g/wt
		"/w/g/wt/config.worktree": file(""),
		"/w/g/c":                  dir,
		"/w/g/c/config":           file(""),
		"/w/g/c/hooks":            dir,
		"/w/g/c/commondir":        file("/w/never\n"), // followed once only
		"/w/never":                dir,
		"/w/never/config":         file(""),
		"/w/lnk":                  {Kind: invocation.KindSymlink, Target: "/w/g"},
		"/w/n/.git":               dir,
		"/w/n/.git/commondir":     file("../../lnk/../../etc\n"), // ".." after a link: not followed
		"/w/o/.git":               dir,
		"/w/o/.git/commondir":     file("/etc\n"), // outside: not followed
		"/etc":                    dir,
		"/etc/config":             file(""),
	}
	for i := range maxGitWorktrees + 2 {
		tree[fmt.Sprintf("/w/g/c/worktrees/x%02d", i)] = dir
		tree[fmt.Sprintf("/w/g/c/worktrees/x%02d/gitdir", i)] = file("/w/x/.git\n")
	}
	g := &gatherer{fs: tree, observed: map[string]Stat{}, walked: map[string]*Walked{}}
	c := &gitIndirect{g: g, root: "/w", index: -1, allow: map[string]bool{}, seen: map[string]bool{}, record: true}
	c.dotGit("/w/.git")
	c.gitDir("/w/n/.git", true, "/w/n")
	c.gitDir("/w/o/.git", true, "/w/o")
	got := indirectPaths(c)
	for _, p := range []string{"/w/.git", "/w/g/wt/commondir", "/w/g/wt/config.worktree", "/w/g/c/config", "/w/g/c/hooks",
		"/w/g/c/commondir", "/w/g/c/worktrees/x00/gitdir", "/w/n/.git/commondir", "/w/o/.git/commondir"} {
		if !got[p] {
			t.Errorf("%s not protected", p)
		}
	}
	for _, p := range []string{"/w/never/config", "/etc/config", fmt.Sprintf("/w/g/c/worktrees/x%02d/gitdir", maxGitWorktrees)} {
		if got[p] {
			t.Errorf("%s protected", p)
		}
	}
	if !c.more {
		t.Errorf("more worktrees than the bound not reported")
	}
	warned := false
	for _, p := range c.out {
		warned = warned || p.Symlink && p.Path == "/w/lnk"
	}
	if !warned {
		t.Errorf("a pointer through the symlink /w/lnk is not warned: %+v", c.out)
	}
	looked := map[string]bool{}
	for _, p := range c.looked {
		looked[p] = true
	}
	if !looked["/w/g/wt/config"] || !looked["/w/g/wt/hooks"] {
		t.Errorf("absent entries of the gitdir target not recorded: %v", c.looked)
	}
}

// A pointer too long to follow (cut short at maxGitPointer bytes, or
// past maxPointerComponents components) is not followed, and sets more:
// the policy refuses the directory rather than bind a wrong target.
func TestGitPointerTooLongFailsClosed(t *testing.T) {
	file := func(s string) Stat { return Stat{Kind: invocation.KindFile, Content: s} }
	dir := Stat{Kind: invocation.KindDir}
	long := "gitdir: /w/" + strings.Repeat("a", maxGitPointer) + "\n"
	deep := "gitdir: /w" + strings.Repeat("/.", maxPointerComponents) + "/g\n"
	for name, v := range map[string]string{"bytes": long, "components": deep, "short": "gitdir: /w/g\n"} {
		tree := factstest.Tree{"/w": dir, "/w/.git": file(v), "/w/g": dir, "/w/g/config": file("")}
		g := &gatherer{fs: tree, observed: map[string]Stat{}, walked: map[string]*Walked{}}
		c := &gitIndirect{g: g, root: "/w", index: -1, allow: map[string]bool{}, seen: map[string]bool{}}
		c.dotGit("/w/.git")
		if want := name != "short"; c.more != want {
			t.Errorf("%s: more = %v, want %v", name, c.more, want)
		}
		if !indirectPaths(c)["/w/.git"] {
			t.Errorf("%s: the pointer itself is not protected", name)
		}
	}
}

// A pointer holding a NUL is read as git reads it, up to the NUL: its
// target is protected, and the compile does not stop on a path the
// kernel refuses (a command could plant one to refuse every compile).
func TestGitPointerNUL(t *testing.T) {
	file := func(s string) Stat { return Stat{Kind: invocation.KindFile, Content: s} }
	dir := Stat{Kind: invocation.KindDir}
	tree := factstest.Tree{"/w": dir, "/w/.git": file("gitdir: /w/g\x00junk\n"), "/w/g": dir, "/w/g/config": file("")}
	g := &gatherer{fs: tree, observed: map[string]Stat{}, walked: map[string]*Walked{}}
	c := &gitIndirect{g: g, root: "/w", index: -1, allow: map[string]bool{}, seen: map[string]bool{}}
	c.dotGit("/w/.git")
	if got := indirectPaths(c); !got["/w/g/config"] {
		t.Errorf("the target before the NUL is not protected: %v", got)
	}
}
