package scan

// This file is the post-command scan's look at what is not a repository
// yet. The scan judges a file by its status-change time: one older than
// the compile is taken as the user's. So whatever a command leaves
// where git would run it once the place becomes a repository (a HEAD
// added, a refs directory that starts to resolve, a commondir or .git
// file pointing there) must be caught after the command that wrote it:
// after a recompile it would pass as the user's, and the compile would
// even bind it read-only, which the scan trusts. Every file git runs
// code from has a name git looks for (config, config.worktree, a hook's
// name in a hooks directory, a rebase or sequencer to-do list), so the
// scan checks those names wherever the command could write them.

import (
	"os"
	"path"
	"slices"
	"strings"

	"github.com/bwpolicy/bwpolicy/hazard/git"
)

// staged checks a directory git does not take for a repository (yet):
// reached as a ".git" directory, through a pointer, or holding a file
// named as git's configuration. Its configuration files (real/config
// or the common directory's, real/config.worktree) are set aside when
// the command changed them and they hold a code key; a file git cannot
// parse there is not git's and stays. The hooks directory's executables
// named as git hooks, and to-do lists with exec lines, are set aside
// too. The pointer that led here (via, cd) goes with what was found.
func (s *gitScan) staged(real, common, via, cd string) {
	var found []string
	for _, c := range []string{path.Join(common, "config"), path.Join(real, "config.worktree")} {
		found = append(found, s.config(c, 0, nil, false)...)
	}
	found = append(found, s.stagedHooks(path.Join(common, "hooks"))...)
	found = append(found, s.todos(real)...)
	if cd != "" && common != real && anyWithin(found, common) && s.writable(cd) {
		s.setAside(cd, "a commondir that leads to "+common+", where code was set aside")
	}
	if via != "" && (anyWithin(found, real) || anyWithin(found, common)) && s.writable(via) {
		s.setAside(via, "a .git pointer that leads to "+real+", where code was set aside")
	}
}

// stagedDir checks a directory the walk found that git does not take
// for a repository but that holds a name git runs code from
// (git.DirEntries.Staged), as staged.
func (s *gitScan) stagedDir(dir string) {
	s.staged(dir, dir, "", "")
}

// stagedHooks sets aside, in a directory named hooks, each executable
// file or symlink named as a git hook (git.HookNames) that the command
// could have written: looked up by name (a large directory of other
// files costs nothing more), as git looks them up.
func (s *gitScan) stagedHooks(dir string) []string {
	undo, ok := s.hookDir(dir)
	if !ok {
		return nil
	}
	defer undo()
	var found []string
	for _, n := range git.HookNames {
		found = append(found, s.hookFile(path.Join(dir, n), "an executable named as a git hook ("+n+") in a directory git may take as its hooks directory")...)
	}
	return found
}

// todos sets aside the to-do lists of git directory g (git.TodoLists)
// that the command could have written and that hold an exec line, and
// the merge strategy a rebase or sequence continues with when it is not
// one of git's own (git runs git-merge-NAME, and a NAME with a slash
// from the worktree): git runs them on the host when the user continues
// the rebase or sequence. A rebase-merge or sequencer directory the
// command renamed into place (its own status changed) has every file
// judged as the command's.
func (s *gitScan) todos(g string) []string {
	var found []string
	for _, t := range git.TodoLists {
		d := path.Join(g, t[0])
		if _, err := os.Lstat(d); err != nil {
			continue
		}
		undo := s.distrustIf(s.changed(d))
		found = append(found, s.todo(path.Join(d, t[1]))...)
		found = append(found, s.strategy(d)...)
		undo()
	}
	return found
}

// strategy checks the merge strategy a rebase (rebase-merge/strategy) or
// a sequence (sequencer/opts, options.strategy) continues with.
func (s *gitScan) strategy(d string) []string {
	var names []string
	p := path.Join(d, "strategy")
	if b, err := readSmall(p); err == nil {
		names = append(names, strings.TrimSpace(string(b)))
	} else {
		p = path.Join(d, "opts")
		if b, err := readSmall(p); err == nil {
			entries, _ := git.ParseConfig(b)
			for _, e := range entries {
				if e.Key == "options.strategy" {
					names = append(names, e.Value)
				}
			}
		}
	}
	for _, n := range names {
		if n != "" && !slices.Contains(git.Strategies, n) && s.writable(p) && s.changed(p) {
			return s.found(s.setAside(p, "a merge strategy that is not git's own ("+n+"): git runs git-merge-"+n+" when the rebase or sequence is continued"))
		}
	}
	return nil
}

// todo checks one to-do list (see todos).
func (s *gitScan) todo(p string) []string {
	fi, err := os.Lstat(p)
	if err != nil || !s.writable(p) || !s.changed(p) {
		return nil
	}
	if !fi.Mode().IsRegular() {
		return s.found(s.setAside(p, "a git to-do list that is not a regular file"))
	}
	b, err := readSmall(p)
	if err != nil {
		return s.found(s.setAside(p, "a git to-do list too large to check"))
	}
	if git.TodoExec(b) {
		return s.found(s.setAside(p, "a git to-do list with an exec line (git runs it when the rebase or sequence is continued)"))
	}
	return nil
}
