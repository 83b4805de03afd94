package scan

import (
	"fmt"
	"os"
	"syscall"

	"github.com/bwpolicy/bwpolicy/hazard/git"
)

// What the post-command git scan does past its bounds (H9): it goes on
// where a command cannot have added work (directories and git
// directories that existed when compiling, whose number is the
// compile's) and sets aside whole what a command created past a bound,
// as it does a hooks directory with too many entries. A bound reached
// by what existed when compiling (a writable set the compile accepted
// under protect.allow: [repositories past the bound]) is reported, as
// before: the run is stale, with a warning naming where the scan
// stopped.

// maxBoundWarnings is how many set-asides past a bound get a warning of
// their own; the others are summed up in one line (every one is in the
// report's SetAside).
const maxBoundWarnings = 8

// pastBound sets aside p whole, something a command created past one of
// the scan's bounds (why says which). What cannot be set aside leaves
// the invocation stale, with a warning.
func (s *gitScan) pastBound(p, why string) {
	s.bound++
	warn := s.bound <= maxBoundWarnings
	if s.setAsideWarn(p, why, warn) == "" {
		if !s.moved[p] {
			s.stale(p, fmt.Sprintf("the git scan did not check %s, %s (H9): review before running git there", p, why))
		}
		return
	}
	if !warn {
		s.boundQuiet++
	}
}

// boundSummary adds the warning for the set-asides past a bound that
// got none of their own.
func (s *gitScan) boundSummary() {
	if s.boundQuiet > 0 {
		s.rep.Warnings = append(s.rep.Warnings, fmt.Sprintf("the git scan set aside %d more directories and repositories the command created past its bounds (H9), listed in the run's status report: review them before you restore them", s.boundQuiet))
	}
}

// pastEntries is the scan's git.RepoWalk.Past: past git.MaxWalkEntries, a
// directory that existed when compiling is walked (a command cannot add
// more of them), one a command created is set aside whole, unlisted:
// git reaches nothing below it at its old place.
func (s *gitScan) pastEntries(dir string) bool {
	if !s.created(dir) || s.isRoot(dir) {
		return true
	}
	s.pastBound(dir, fmt.Sprintf("a directory created past the git scan's bound of %d entries", git.MaxWalkEntries))
	return false
}

func (s *gitScan) isRoot(p string) bool {
	for _, r := range s.roots {
		if p == r {
			return true
		}
	}
	return false
}

// admit counts the repository with git directory real (found as g,
// through via: a ".git" file or symlink, "" for none) against
// MaxGitScanRepos and reports whether it is inspected. Git directories
// that existed when compiling and those created since are counted
// apart, so that decoys a command plants cannot push the user's
// repositories past the bound. Past it, one created since is set aside
// whole (via, else g): git then finds no repository there. One that
// existed when compiling is reported unchecked, stale (only a writable
// set that held more than MaxGitScanRepos repositories when compiling
// gets there).
func (s *gitScan) admit(g, real, via string) bool {
	if !s.created(real) {
		s.repos++
		if s.repos == MaxGitScanRepos+1 {
			s.stale(real, fmt.Sprintf("the git scan stopped after %d repositories that existed when compiling, at %s (H9): the others were not checked for code a later host git would run; review before running git there", MaxGitScanRepos, real))
		}
		return s.repos <= MaxGitScanRepos
	}
	s.newRepos++
	if s.newRepos <= MaxGitScanRepos {
		return true
	}
	p := g
	if via != "" {
		p = via
	}
	s.pastBound(p, fmt.Sprintf("a repository created past the git scan's bound of %d new repositories", MaxGitScanRepos))
	return false
}

// repoList lists a modules or worktrees directory whose entries are
// git directories. Past maxGitHooks entries, one that changed since the
// compile is set aside whole (git then finds none of its submodules or
// worktrees); one that did not holds the names it held when compiling,
// all of which are listed (each is counted as a repository by admit).
func (s *gitScan) repoList(dir, what string) []string {
	names, ok := s.list(dir, maxGitHooks)
	if ok {
		return names
	}
	if s.grown(dir) {
		s.pastBound(dir, fmt.Sprintf("a %s directory with more than %d entries", what, maxGitHooks))
		return nil
	}
	if names, ok = s.list(dir, git.MaxWalkEntries); !ok {
		s.stale(dir, fmt.Sprintf("the git scan did not check %s: more than %d entries (H9); review before running git there", dir, git.MaxWalkEntries))
	}
	return names
}

// pastModules handles a directory of submodule git directories past a
// bound (nesting, or the entries the scan lists in all): changed since
// the compile, it is set aside whole; else it is reported, stale.
// Listing submodule names nests: without a bound on the entries, a
// command could make the scan list 1,024 names at each of 8 levels.
func (s *gitScan) pastModules(p, why string) {
	if s.grown(p) {
		s.pastBound(p, why)
		return
	}
	s.stale(p, fmt.Sprintf("the git scan did not check %s, %s (H9): review before running git there", p, why))
}

// list returns a directory's names, at most max; past that, the names
// read so far are returned with false.
func (s *gitScan) list(dir string, max int) ([]string, bool) {
	f, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return nil, true
	}
	defer f.Close()
	names, _ := f.Readdirnames(max + 1)
	s.entries += len(names)
	return names, len(names) <= max
}
