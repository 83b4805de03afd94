package facts

import (
	"github.com/bwpolicy/bwpolicy/facts/factstest"

	"fmt"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/hazard/git"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// TestNestedGitDirsBounds holds the compile's search for repositories
// to bwrun's walk and its bounds: found at any depth up to
// git.MaxWalkDepth, with the worktree of each; a directory past
// it, more than maxNestedRepos repositories or submodule names nested
// past maxModuleDepth set more (the policy refuses the directory); the
// skipped directories are not entered.
func TestNestedGitDirsBounds(t *testing.T) {
	file := Stat{Kind: invocation.KindFile}
	dir := Stat{Kind: invocation.KindDir}
	gather := func(tree factstest.Tree, skip ...string) ([]repoWorktree, bool) {
		g := &gatherer{fs: tree, observed: map[string]Stat{}, walked: map[string]*Walked{}}
		return g.nestedGitDirs("/w", skip)
	}
	deep := "/w" + strings.Repeat("/d", git.MaxWalkDepth-1)
	repos, more := gather(factstest.Tree{
		deep + "/r/.git/config":      file, // MaxGitScanDepth levels down: found
		"/w/x/y.git/HEAD":            file, // a bare repository
		"/w/x/y.git/objects":         dir,
		"/w/s/r/.git/config":         file, // skipped
		"/w/.git/modules/a/b/c/HEAD": file,
	}, "/w/s")
	got := fmt.Sprint(repos)
	for _, want := range []string{"{" + deep + "/r/.git " + deep + "/r}", "{/w/x/y.git /w/x/y.git}", "{/w/.git/modules/a/b/c }"} {
		if !strings.Contains(got, want) {
			t.Errorf("%s not found: %s", want, got)
		}
	}
	if more || strings.Contains(got, "/w/s/") {
		t.Errorf("more %v, or a skipped directory entered: %s", more, got)
	}
	for name, tree := range map[string]factstest.Tree{
		"too deep":          {deep + "/d/r/.git/config": file},
		"module names deep": {"/w/.git/modules" + strings.Repeat("/m", maxModuleDepth+1) + "/HEAD": file},
		"too many":          manyRepos(maxNestedRepos + 1),
	} {
		if _, more := gather(tree); !more {
			t.Errorf("%s: past the bound not reported", name)
		}
	}
	if repos, more := gather(manyRepos(maxNestedRepos)); more || len(repos) != maxNestedRepos {
		t.Errorf("%d repositories at the bound: more %v, found %d", maxNestedRepos, more, len(repos))
	}
}

// manyRepos is a tree of n repositories at depths 1 to 3 below /w.
func manyRepos(n int) factstest.Tree {
	t := factstest.Tree{}
	for i := range n {
		t[fmt.Sprintf("/w%s/r%02d/.git/config", strings.Repeat("/d", i%3), i)] = Stat{Kind: invocation.KindFile}
	}
	return t
}

// TestNestedGitDirsCaseInsensitive: on a case-insensitive directory the
// listing shows ".GIT" and git's lookup of ".git" finds it: the compile
// finds that repository (and binds its hooks read-only) as it does a
// ".git"; on a case-sensitive tree a ".GIT" is no repository.
func TestNestedGitDirsCaseInsensitive(t *testing.T) {
	tree := factstest.Tree{"/w/sub/.GIT/config": {Kind: invocation.KindFile}, "/w/sub/.GIT/hooks/pre-commit": {Kind: invocation.KindFile}}
	for _, tc := range []struct {
		fs   FS
		want string
	}{{caseFoldFS{tree}, "[{/w/sub/.git /w/sub}]"}, {tree, "[]"}} {
		g := &gatherer{fs: tc.fs, observed: map[string]Stat{}, walked: map[string]*Walked{}}
		repos, _ := g.nestedGitDirs("/w", nil)
		if got := fmt.Sprint(repos); got != tc.want {
			t.Errorf("%T: %s, want %s", tc.fs, got, tc.want)
		}
	}
}
