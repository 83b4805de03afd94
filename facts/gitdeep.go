package facts

import (
	"path"
	"slices"
	"strings"

	"github.com/bwpolicy/bwpolicy/hazard/git"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// maxNestedRepos bounds how many repositories below a writable directory
// H9 binds read-only (each costs two mounts, and pins for its parents,
// per command): past it, the directory is refused (H9 fails closed).
const maxNestedRepos = 64

// maxModuleDepth bounds the nesting of submodule names (modules/a/b/…),
// as bwrun's scan does.
const maxModuleDepth = 8

type nestedScan struct {
	repos []repoWorktree
	more  bool
}

// nestedGitDirsCached is nestedGitDirs once per Host, directory and set
// of skipped paths.
func (g *gatherer) nestedGitDirsCached(h *Host, dir string, skip []string) ([]repoWorktree, bool) {
	key := dir + "\x00" + strings.Join(skip, "\x00")
	if h != nil {
		if v, ok := h.scans.Load(key); ok {
			sc := v.(nestedScan)
			return sc.repos, sc.more
		}
	}
	repos, more := g.nestedGitDirs(dir, skip)
	if h != nil {
		h.scans.Store(key, nestedScan{repos, more})
	}
	return repos, more
}

// nestedGitDirs walks dir with git.RepoWalk, the walk of bwrun's
// post-command scan (same rules and bounds: symlinks not followed, .git
// directories not entered, skip's paths — masked or read-only, which a
// command cannot write — not entered), and returns the repositories it
// finds below dir, with the worktree each runs its hooks in: a
// directory x holding ".git" gives x/.git (a directory, or a file the
// caller follows like the top repository's; worktree x); a bare
// repository its own directory (hooks run there); and every git
// directory found (dir/.git included) its submodules' git directories
// (modules/NAME, nested; worktree not known here: see gitIndirect.repo).
// The repositories are listed at compile time only and not recorded: a
// repository cloned later is bwrun's scan's. They come sorted by path, the first
// maxNestedRepos of them kept. more reports a bound
// reached: more than maxNestedRepos repositories, more than
// git.MaxWalkEntries entries, a directory deeper than
// git.MaxWalkDepth, submodule names nested deeper than
// maxModuleDepth.
func (g *gatherer) nestedGitDirs(dir string, skip []string) (repos []repoWorktree, more bool) {
	add := func(r repoWorktree) { repos = append(repos, r) }
	var modules func(d string, depth int)
	modules = func(d string, depth int) {
		names, err := g.fs.ReadDir(d)
		if err != nil {
			return
		}
		for _, n := range names {
			m := path.Join(d, n)
			if g.fs.Lstat(m).Kind != invocation.KindDir {
				continue
			}
			if g.fs.Lstat(path.Join(m, "HEAD")).Kind != invocation.KindAbsent || g.fs.Lstat(path.Join(m, "config")).Kind == invocation.KindFile {
				add(repoWorktree{dir: m})
				modules(path.Join(m, "modules"), 0)
				continue
			}
			if depth+1 >= maxModuleDepth {
				more = true
				continue
			}
			modules(m, depth+1)
		}
	}
	repoAt := func(d string) {
		gd := path.Join(d, ".git")
		switch g.fs.Lstat(gd).Kind {
		case invocation.KindDir:
			if d != dir {
				add(repoWorktree{dir: gd, top: d})
			}
			modules(path.Join(gd, "modules"), 0)
		case invocation.KindFile:
			if d != dir {
				add(repoWorktree{dir: gd, top: d})
			}
		}
	}
	entries := 0
	w := git.RepoWalk{
		List: g.fs.ListDir,
		Enter: func(p string) bool {
			return !slices.ContainsFunc(skip, func(s string) bool { return Within(p, s) })
		},
		Visit: func(d string, de *git.DirEntries) {
			switch {
			case de.Git:
				repoAt(d)
			case de.Bare() && d != dir:
				add(repoWorktree{dir: d, top: d})
				modules(path.Join(d, "modules"), 0)
			}
		},
		Unlisted: func(d string, _ error) { repoAt(d) }, // git can still look .git up by name
		TooDeep:  func(string) { more = true },
		Entries:  &entries,
	}
	if !w.Walk(dir) {
		more = true
	}
	// The listing's order is the file system's: sorted, the same
	// repositories are bound, in the same order, on every compile.
	slices.SortStableFunc(repos, func(a, b repoWorktree) int { return strings.Compare(a.dir, b.dir) })
	if len(repos) > maxNestedRepos {
		repos, more = repos[:maxNestedRepos], true
	}
	return repos, more
}
