package git

import (
	"slices"
	"testing"
)

// TestGitNameFolds: a listing's ".GIT", "Head" or "refſ" is what a
// case-insensitive directory gives git for ".git", "HEAD" or "refs";
// a name that folds to something else is not.
func TestGitNameFolds(t *testing.T) {
	var de DirEntries
	for _, n := range []string{".GIT", "head", "CONFIG", "x"} {
		de.Add(n, true)
	}
	if !de.Git || !de.Bare() {
		t.Errorf(".GIT, head, CONFIG: Git %v, Bare %v; want both", de.Git, de.Bare())
	}
	de.Reset()
	for _, n := range []string{".gıt", ".git2", "HEADS", "refſ"} {
		de.Add(n, true)
	}
	if de.Git || de.Bare() || !de.refs {
		t.Errorf(".gıt, .git2, HEADS, refſ: Git %v, Bare %v, refs %v; want false, false, true", de.Git, de.Bare(), de.refs)
	}
}

// TestRepoWalkEntersFoldedGitDir: the walk skips a directory named
// exactly ".git" and goes into ".GIT" (on a case-sensitive directory an
// ordinary one, where a repository may hide).
func TestRepoWalkEntersFoldedGitDir(t *testing.T) {
	listing := map[string][]string{"/w": {".git", ".GIT"}, "/w/.GIT": {"r"}, "/w/.GIT/r": {".git"}}
	var visited []string
	entries := 0
	w := RepoWalk{
		List: func(dir string, de *DirEntries) error {
			de.Reset()
			for _, n := range listing[dir] {
				de.Add(n, true)
			}
			return nil
		},
		Enter:    func(string) bool { return true },
		Visit:    func(dir string, de *DirEntries) { visited = append(visited, dir) },
		Unlisted: func(string, error) {},
		TooDeep:  func(string) {},
		Entries:  &entries,
	}
	w.Walk("/w")
	if want := []string{"/w", "/w/.GIT", "/w/.GIT/r"}; !slices.Equal(visited, want) {
		t.Errorf("visited %q, want %q", visited, want)
	}
}
