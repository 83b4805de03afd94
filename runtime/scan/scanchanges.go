package scan

import (
	"path"
	"strings"
	"time"

	"github.com/bwpolicy/bwpolicy/hazard/git"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/runtime/ledger"
	"github.com/bwpolicy/bwpolicy/runtime/watch"
)

// This file is the post-command scan of what changed, with the
// environment's watcher (runtime/watch) answering: instead of walking
// the whole writable set, the walk lists the directories the watcher
// reports dirty (a Tree one with everything below it) and those on the
// way to them, and visits again the directories whose visit does
// something (kept: a repository, a bare or staged one, symlinks), with
// the listing the last finished scan kept of them. Every other
// directory is unchanged since that scan (no entry added, removed,
// renamed or changed in it: the watcher would have reported it) and its
// visit did nothing then (what a visit does follows from its listing and
// what it reads afresh), so it would do nothing now: the scan's findings
// are a whole scan's, at a cost that follows the changes.

// changes is what a scan of what changed walks.
type changes struct {
	dirty watch.Set
	kept  *ledger.Index
	// anc holds every directory on the way down to a dirty one.
	anc map[string]bool
	// visited are the directories this walk listed and visited.
	visited map[string]bool
	// tooMany: the walk's count (the last whole scan's, plus what this
	// one listed) passed git.MaxWalkEntries: a whole scan decides.
	tooMany bool
}

func newChanges(dirty watch.Set, kept *ledger.Index) *changes {
	c := &changes{dirty: dirty, kept: kept, anc: map[string]bool{}, visited: map[string]bool{}}
	for d := range dirty {
		for p := path.Dir(d); p != "/" && !c.anc[p]; p = path.Dir(p) {
			c.anc[p] = true
		}
	}
	return c
}

// under reports whether p is a Tree-dirty directory or lies below one.
func (c *changes) under(p string) bool {
	for ; ; p = path.Dir(p) {
		if c.dirty[p] == watch.Tree {
			return true
		}
		if p == "/" || p == "." {
			return false
		}
	}
}

// walkChanges is walk for a scan of what changed (gitScan.changes).
func (s *gitScan) walkChanges(root string) {
	c := s.changes
	buf := make([]byte, 32<<10)
	w := s.repoWalk(root, buf)
	w.List = func(dir string, de *git.DirEntries) error {
		s.read++
		err := ListDir(dir, buf, de)
		if err == nil && c.dirty[dir] == 0 && !c.under(dir) {
			// A directory on the way down to a dirty one: its entries
			// did not change since the finished scan whose count
			// (st.Entries) holds them already; the walk adds them
			// again, so they are taken off first. The count stays a
			// bound of the tree's entries, and a command that changed
			// nothing leaves it as it was.
			s.entries -= de.Len()
		}
		return err
	}
	w.Enter = func(p string) bool {
		return (c.anc[p] || c.dirty[p] != 0 || c.under(p)) && s.enter(p)
	}
	w.Visit = func(dir string, de *git.DirEntries) {
		c.visited[dir] = true
		s.visit(dir, de)
	}
	w.Past, w.Max = nil, git.MaxWalkEntries
	if !w.Walk(root) && !s.over {
		c.tooMany = true
		return
	}
	var de git.DirEntries
	c.kept.Each(func(dir string, l *ledger.Listing) {
		if s.over || !invocation.Within(dir, root) || c.visited[dir] || c.dirty[dir] != 0 || c.under(dir) || dir != root && !s.enter(dir) {
			return
		}
		fromListing(l, &de)
		s.visit(dir, &de)
	})
}

// keepVisit keeps dir's reduced listing de as one to visit again after
// every command (gitScan.visits).
func (s *gitScan) keepVisit(dir string, de *git.DirEntries) {
	s.visits.Put(dir, reduced(de, &ledger.Listing{}))
}

// watchEnter is the watcher's Config.Enter: the directories the scan's
// walk goes into (git.RepoWalk: not a ".git", not past
// git.MaxWalkDepth below its root, enter).
func (s *gitScan) watchEnter(p string) bool {
	if path.Base(p) == ".git" {
		return false
	}
	for _, r := range s.roots {
		if invocation.Within(p, r) {
			return strings.Count(p[len(r):], "/") <= git.MaxWalkDepth && s.enter(p)
		}
	}
	return false
}

// Changes is the post-command scan of what changed since the finished
// scan that left st: the watcher's dirty directories, and st's kept
// visits. It returns the report and the state to record once the
// outcome is (token and generation are the caller's to set); ok false
// when the walk's count passed git.MaxWalkEntries: a Whole scan then
// decides (what this one set aside is in its report).
func Changes(inv *invocation.Invocation, home string, now time.Time, led *ledger.Ledger, dirty watch.Set, st *ledger.WatchState) (rep GitScanReport, next ledger.WatchState, ok bool) {
	s := newGitScan(inv, home, now, led)
	defer s.siblings.close()
	s.changes = newChanges(dirty, st.Visits)
	s.entries = st.Entries
	s.visits = ledger.NewIndex()
	s.run(inv)
	return s.rep, ledger.WatchState{Entries: s.entries, Changes: true, Visits: s.visits}, !s.changes.tooMany
}

// Whole is ScanGitIndexed that also returns the state a later Changes
// scans from.
func Whole(inv *invocation.Invocation, home string, now time.Time, led *ledger.Ledger, idx *ledger.Index) (GitScanReport, ledger.WatchState) {
	s := newGitScan(inv, home, now, led)
	defer s.siblings.close()
	s.index = idx
	s.visits = ledger.NewIndex()
	s.run(inv)
	return s.rep, ledger.WatchState{Entries: s.entries, Visits: s.visits}
}

// WatchTree returns what the environment's watcher watches
// (watch.Config): the roots of the writable set and which directories
// below them the scan's walk enters.
func WatchTree(inv *invocation.Invocation) (roots []string, enter func(p string) bool) {
	s := newGitScan(inv, "", time.Now(), nil)
	return s.roots, s.watchEnter
}
