package git

import (
	"errors"
	"path"
	"strings"
	"syscall"
)

// Bounds of RepoWalk. They are variables so that tests can lower them;
// nothing changes them at run time.
var (
	// MaxWalkEntries bounds the directory entries a walk lists.
	MaxWalkEntries = 1_000_000
	// MaxWalkDepth bounds how deep below its root a walk looks for
	// repositories.
	MaxWalkDepth = 64
)

// RepoWalk is the walk of a writable directory for git repositories by
// H9's rules (bwpolicy's host-hazard rule for git): breadth-first, symlinks never followed, ".git" directories
// not descended into, at most MaxWalkDepth levels and
// MaxWalkEntries entries. bwrun's post-command scan (ScanGit) walks
// with it, and the compile walks with it too, so that what the compile
// binds read-only and what the scan checks afterwards are the same
// repositories.
type RepoWalk struct {
	// List lists dir (without following a symlink at its last
	// component) into de, as ListDir does.
	List func(dir string, de *DirEntries) error
	// Enter reports whether the walk goes into the directory p: one a
	// command cannot write (read-only, masked) is skipped.
	Enter func(p string) bool
	// Visit is called with each directory listed and its listing.
	Visit func(dir string, de *DirEntries)
	// Unlisted is called for a directory that exists but could not be
	// listed (not one that vanished or was replaced by a file or link).
	Unlisted func(dir string, err error)
	// TooDeep is called for a directory more than MaxWalkDepth levels
	// below the root; it is not entered.
	TooDeep func(p string)
	// Entries counts the entries listed (the caller may count more of
	// its own against the same bound).
	Entries *int
	// Stop, when set and true, ends the walk before the next directory
	// (a time budget ran out: the caller says where).
	Stop func() bool
	// Max, when positive, is the walk's bound instead of MaxWalkEntries.
	Max int
	// Past, when set, lets the walk go on past MaxWalkEntries: after
	// the directory whose listing crossed the bound, each directory is
	// handed to Past, and visited and walked into only when Past returns
	// true (ScanGit: the directory existed when compiling; one a command
	// created, Past sets aside whole). What is listed past the bound is
	// counted apart, against MaxWalkEntries again. Without Past (the
	// compile), the walk stops at the bound.
	Past func(dir string) bool
}

// Walk walks root. It returns false when it stopped at
// MaxWalkEntries entries (with Past, at MaxWalkEntries more past
// them): what lies past them was not looked at.
func (w *RepoWalk) Walk(root string) bool {
	type item struct {
		dir   string
		depth int
	}
	queue := []item{{root, 0}}
	var de DirEntries
	over, past := false, 0 // past the bound; entries listed since
	max := MaxWalkEntries
	if w.Max > 0 {
		max = w.Max
	}
	for len(queue) > 0 {
		if w.Stop != nil && w.Stop() {
			return true // the caller reports where it stopped
		}
		it := queue[0]
		queue = queue[1:]
		if over && !w.Past(it.dir) {
			continue
		}
		if err := w.List(it.dir, &de); err != nil {
			if !errors.Is(err, syscall.ENOENT) && !errors.Is(err, syscall.ENOTDIR) && !errors.Is(err, syscall.ELOOP) {
				w.Unlisted(it.dir, err)
			}
			continue
		}
		if over {
			if past += de.Len(); past > max {
				return false
			}
		} else if *w.Entries += de.Len(); *w.Entries > max {
			if w.Past == nil {
				return false
			}
			over = true // this listing is paid for: it is visited
		}
		w.Visit(it.dir, &de)
		for i, n := range de.Names {
			if !de.IsDir[i] || n == ".git" {
				continue
			}
			p := path.Join(it.dir, n)
			if !w.Enter(p) {
				continue
			}
			if it.depth+1 > MaxWalkDepth {
				w.TooDeep(p)
				continue
			}
			queue = append(queue, item{p, it.depth + 1})
		}
	}
	return true
}

// DirEntries is one directory's listing: the names, whether each is a
// directory (a symlink is not), and the names git looks for.
type DirEntries struct {
	Names []string
	IsDir []bool
	// Links are the indexes in Names of the symlinks (when List knows
	// them: ListDir does).
	Links []int
	// Unlisted counts entries of the directory left out of Names (a
	// reduced listing: Notable).
	Unlisted int
	// Git is true when the directory holds ".git" (of any type): it is
	// a repository's worktree.
	Git                                    bool
	head, config, objects, refs, commondir bool
	// staged: a name git runs code from once the directory is a git
	// directory (config.worktree, hooks, rebase-merge, sequencer;
	// config itself is config).
	staged bool
}

// Len is the number of entries the directory holds: those in Names and
// those a reduced listing left out (Unlisted).
func (de *DirEntries) Len() int { return len(de.Names) + de.Unlisted }

// Notable reports whether a name matters to the walk beyond its type: a
// name Add looks for (".git", "HEAD", "config", …, matched as Add
// matches them). A reduced listing (one kept from an earlier walk) keeps
// these, the directories and the symlinks, and counts the rest.
func Notable(name string) bool {
	for _, n := range notableNames {
		if Name(name, n) {
			return true
		}
	}
	return false
}

var notableNames = []string{".git", "HEAD", "config", "objects", "refs", "commondir", "config.worktree", "hooks", "rebase-merge", "sequencer"}

// Reset empties de, keeping its storage.
func (de *DirEntries) Reset() {
	*de = DirEntries{Names: de.Names[:0], IsDir: de.IsDir[:0], Links: de.Links[:0]}
}

// Add appends one entry. The names git looks for are matched as a
// case-insensitive directory matches them (Name): there, git's
// lookup of ".git" finds the ".GIT" a listing shows. What a match
// leads to is then looked up by git's own spelling, so on a
// case-sensitive directory a ".GIT" costs one lookup that finds nothing.
func (de *DirEntries) Add(name string, isDir bool) {
	switch {
	case Name(name, ".git"):
		de.Git = true
	case Name(name, "HEAD"):
		de.head = true
	case Name(name, "config"):
		de.config = true
	case Name(name, "objects"):
		de.objects = true
	case Name(name, "refs"):
		de.refs = true
	case Name(name, "commondir"):
		de.commondir = true
	case Name(name, "config.worktree"), Name(name, "hooks"), Name(name, "rebase-merge"), Name(name, "sequencer"):
		de.staged = true
	}
	de.Names = append(de.Names, name)
	de.IsDir = append(de.IsDir, isDir)
}

// Bare reports whether the directory looks like a bare repository (HEAD
// next to config, objects, refs or commondir): git may use it as a git
// directory. A ".git" next to them does not rule it out: one git passes
// by (a FIFO, a dangling symlink, a directory that is no repository)
// sends its discovery on to the directory itself (setup.c). A command
// may make any directory look like one, so the walk still goes on below
// it.
func (de *DirEntries) Bare() bool {
	return de.head && (de.config || de.objects || de.refs || de.commondir)
}

// Staged reports whether the directory holds a name git runs code from
// once it is a git directory (config, config.worktree, hooks,
// rebase-merge, sequencer), though it is no bare repository: a command
// can make it one later (ScanGit checks such names after every
// command).
func (de *DirEntries) Staged() bool {
	return !de.Bare() && (de.config || de.staged)
}

// Name reports whether a directory entry called name is found by a
// lookup of want (a name git looks for) on a case-insensitive directory:
// ext4, f2fs or tmpfs casefolding (an owner can turn it on for an empty
// directory: chattr +F), vfat, exfat, or a share mounted from a
// case-insensitive system. Those fold case (strings.EqualFold folds
// "ſ" to "s" and the Kelvin sign to "k", as they do); on a
// case-sensitive directory this matches more than git would, and the
// caller's lookup by git's spelling finds nothing there. A walk that
// skips ".git" directories skips only the exact name: skipping a ".GIT"
// on a case-sensitive directory would hide a repository inside it.
func Name(name, want string) bool {
	if name == want {
		return true
	}
	// A folded spelling is never shorter, nor more than three bytes a
	// letter (the Kelvin sign): most names are ruled out here.
	if len(name) < len(want) || len(name) > 3*len(want) {
		return false
	}
	return strings.EqualFold(name, want)
}
