package scan

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"syscall"

	"github.com/bwpolicy/bwpolicy/hazard/git"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// repo inspects the repository whose worktree is top, reached through
// its ".git" entry: a directory, a symlink (git follows it) or a file
// holding "gitdir: PATH" (relative to top; git's read_gitfile_gently).
func (s *gitScan) repo(top, entry string) {
	fi, err := os.Lstat(entry)
	if err != nil {
		return
	}
	via := ""
	if fi.Mode()&os.ModeSymlink != 0 {
		if s.pointerThroughProc(entry, entry) {
			return
		}
		// git stat()s through the link: to a directory it is the git
		// directory, to a file it is read as a .git file (its gitdir
		// relative to top, where the link is).
		via = entry
		if fi, err = os.Stat(entry); err != nil {
			return
		}
	}
	switch {
	case fi.IsDir():
		s.inspect(entry, top, via)
	case fi.Mode().IsRegular():
		b, err := readSmall(entry)
		if err != nil {
			return // git refuses it too ("too large", unreadable)
		}
		// read_gitfile_gently: CR/LF trimmed, the length checked, then
		// the value read as a C string ("gitdir: \x00" is the directory
		// holding the file).
		v := strings.TrimRight(string(b), "\r\n")
		if !strings.HasPrefix(v, "gitdir: ") || len(v) < 9 {
			return // git dies: "invalid gitfile format"
		}
		g := git.CString(v[len("gitdir: "):])
		if !path.IsAbs(g) {
			g = top + "/" + g
		}
		if s.pointerThroughProc(entry, g) {
			return
		}
		s.inspect(joinPhysical(top, g), top, entry) // a link to the file is set aside itself
	}
}

// inspect checks one git directory g (the worktree top, for relative
// hook paths), reached through via (a ".git" file or symlink; "" for a
// directory): its common directory (the "commondir" file, relative to
// g), the configuration git reads (common/config, g/config.worktree,
// their includes), the hooks directory, and the submodules
// (common/modules) and worktrees (common/worktrees) below it.
func (s *gitScan) inspect(g, top, via string) {
	if s.tick(g) {
		return
	}
	real, err := s.evalSymlinks(g)
	if err != nil || s.seen[real] {
		return
	}
	s.seen[real] = true
	common, cd := real, path.Join(real, "commondir")
	b, err := readSmall(cd)
	switch {
	case err == nil:
		v := git.TrimPointer(b)
		if !path.IsAbs(v) {
			v = real + "/" + v
		}
		if s.pointerThroughProc(cd, v) {
			return
		}
		if common, err = s.evalSymlinks(joinPhysical(real, v)); err != nil {
			return // git dies
		}
	case errors.Is(err, errTooLarge) && s.writable(cd):
		s.setAside(cd, "a commondir file too large to check")
		return
	default:
		cd = ""
	}
	// What a pointer this command wrote leads to, the command chose for
	// git to use: it is judged as the command's, whatever its age.
	defer s.distrustIf(via != "" && (s.changed(via) || s.movedInto(real)) || cd != "" && (s.changed(cd) || s.movedInto(common)))()
	if !gitDirValid(real, common) {
		// Not a repository yet: git passes it by, but a later command
		// (a HEAD, a refs directory, a pointer) can make it one, and
		// after a recompile what is there would pass as the user's.
		s.staged(real, common, via, cd)
		return
	}
	if !s.admit(g, real, via) {
		return // past the bound: set aside whole, or reported
	}
	// The configuration git reads, read once: for core.worktree, then
	// judged (nothing changes in between: the sandbox is dead).
	cfgs := [2]configFile{{p: path.Join(common, "config")}, {p: path.Join(real, "config.worktree")}}
	for i := range cfgs {
		cfgs[i].b, cfgs[i].err = readSmall(cfgs[i].p)
	}
	if wt := coreWorktree(cfgs, real); wt != "" {
		top = wt // where git runs hooks, whatever led here
	}
	hp := ""
	var found []string
	for _, c := range cfgs {
		found = append(found, s.configRead(c, 0, &hp, true)...)
	}
	if hp == "" {
		hp = s.globalHP
	}
	hooks := path.Join(common, "hooks")
	switch {
	case hp == "":
	default:
		hooks = s.userPath(top, hp, "core.hooksPath of "+real, real)
	}
	found = append(found, s.hooks(hooks)...)
	found = append(found, s.todos(real)...)
	if !s.listed[common] {
		// Once per common directory: each linked worktree leads back to
		// it, and listing it again for each was quadratic.
		s.listed[common] = true
		s.modules(path.Join(common, "modules"), 0)
		s.worktrees(path.Join(common, "worktrees"))
	}
	if cd != "" && common != real && anyWithin(found, common) && s.writable(cd) {
		s.setAside(cd, "a commondir that leads to "+common+", where code was set aside")
	}
	if via != "" && (anyWithin(found, real) || anyWithin(found, common)) && s.writable(via) {
		s.setAside(via, "a .git pointer that leads to "+real+", where code was set aside")
	}
}

// coreWorktree returns the worktree core.worktree names in the
// configuration of git directory g (cfgs, as read: common/config, then
// g/config.worktree; the last one set wins), relative to g as git's
// setup.c reads it; "" when neither sets it. A submodule's git
// directory (.git/modules/NAME) names its checkout so: a relative
// core.hooksPath there is relative to the checkout, not to the git
// directory.
func coreWorktree(cfgs [2]configFile, g string) string {
	wt := ""
	for _, c := range cfgs {
		if c.err != nil {
			continue
		}
		entries, _ := git.ParseConfig(c.b)
		for _, e := range entries {
			if e.Key == "core.worktree" && !e.Bool && e.Value != "" {
				wt = e.Value
			}
		}
	}
	if wt != "" && !path.IsAbs(wt) {
		wt = path.Join(g, wt)
	}
	return wt
}

// gitDirValid is a superset of git's is_git_directory: HEAD in g, refs
// in its common directory. git asks only access(X_OK) of refs and
// objects (an executable file passes), and GIT_OBJECT_DIRECTORY may
// name the objects elsewhere: any refs will do, and objects is not
// asked for. Taking a directory for a repository that git would not is
// only a closer look.
func gitDirValid(g, common string) bool {
	if _, err := os.Lstat(path.Join(g, "HEAD")); err != nil {
		return false
	}
	_, err := os.Stat(path.Join(common, "refs"))
	return err == nil
}

func anyWithin(ps []string, dir string) bool {
	for _, p := range ps {
		if invocation.Within(p, dir) {
			return true
		}
	}
	return false
}

// config checks one configuration file git reads (depth: how many
// includes led here) and the files it includes, in order: a writable
// file holding a code key (git.CodeKeys) or that git cannot parse is set
// aside. hp, when set, receives core.hooksPath from the files that stay.
// Not strict (a directory git does not take for a repository yet:
// staged), a file git cannot read or parse is not git's and no finding,
// unless it is too large to check. It returns the paths set aside.
func (s *gitScan) config(p string, depth int, hp *string, strict bool) []string {
	if depth > maxGitIncludeDepth {
		return nil // git dies ("exceeded maximum include depth")
	}
	b, err := readSmall(p)
	return s.configRead(configFile{p: p, b: b, err: err}, depth, hp, strict)
}

// configFile is a configuration file git reads, as readSmall read it.
type configFile struct {
	p   string
	b   []byte
	err error
}

// configRead is config with the file already read (c).
func (s *gitScan) configRead(c configFile, depth int, hp *string, strict bool) []string {
	p, b, err := c.p, c.b, c.err
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || !s.writable(p) || !s.changedConfig(p) {
			return nil // absent (git passes it by), or not the command's
		}
		if !strict && !errors.Is(err, errTooLarge) {
			return nil // a directory, a FIFO, …: not a file git reads
		}
		// Fail closed: what the scan cannot read (too large, a FIFO or a
		// directory in its place, unreadable) it cannot clear.
		why := "a git configuration file too large to check"
		if !errors.Is(err, errTooLarge) {
			why = "a git configuration file the scan cannot read (" + err.Error() + ")"
		}
		return s.found(s.setAside(p, why))
	}
	entries, perr := git.ParseConfig(b)
	var keys []string
	for _, e := range entries {
		if git.CodeKey(e) || e.Key == "core.worktree" && s.worktreeAway(path.Dir(p), e) {
			keys = append(keys, e.Key)
		}
	}
	var found []string
	if !strict && perr != nil && !mentionsCodeKey(b) {
		return nil // not git's: git cannot read it either, and it names nothing git runs
	}
	if s.writable(p) && (perr != nil || len(keys) > 0) && s.changedConfig(p) {
		why := "a git configuration that runs code (" + strings.Join(FirstN(keys, 4), ", ") + ")"
		if perr != nil {
			why = "a git configuration git cannot parse (" + perr.Error() + ")"
		}
		found = s.found(s.setAside(p, why))
		hp = nil // what it set no longer applies
	}
	for _, e := range entries {
		if e.Key == "core.hookspath" && hp != nil {
			*hp = e.Value
		}
		inc, ok := git.IncludePath(e)
		if !ok {
			continue
		}
		if inc = s.userPath(path.Dir(p), inc, "include path in "+p, p); inc != "" {
			found = append(found, s.config(inc, depth+1, hp, strict)...)
		}
	}
	return found
}

func (s *gitScan) found(p string) []string {
	if p == "" {
		return nil
	}
	return []string{p}
}

// FirstN returns the first n of xs, and "…" when there were more (a
// message's list).
func FirstN(xs []string, n int) []string {
	if len(xs) > n {
		return append(xs[:n:n], "…")
	}
	return xs
}

// hooks sets aside every executable file and every symlink (git follows
// it) in a writable hooks directory, but git's inert "*.sample" files.
func (s *gitScan) hooks(dir string) []string {
	undo, ok := s.hookDir(dir)
	if !ok {
		return nil
	}
	defer undo()
	names, ok := s.list(dir, maxGitHooks)
	if !ok {
		if s.grown(dir) {
			// Too many to check one by one, and changed since the
			// compile: the whole directory goes, git then runs none.
			return s.found(s.setAside(dir, "a git hooks directory with more entries than the scan checks"))
		}
		s.stale(dir, fmt.Sprintf("the git scan did not check %s: more than %d entries (H9); review before running git there", dir, maxGitHooks))
		return nil
	}
	var found []string
	for _, n := range names {
		if strings.HasSuffix(n, ".sample") {
			continue
		}
		found = append(found, s.hookFile(path.Join(dir, n), "an executable git hook")...)
	}
	return found
}

// hookDir tells whether dir is a hooks directory the command could have
// written, and, when its own status changed since the compile (renamed
// into place after being written before a recompile, as the second
// review did, or added to), makes its files the command's until undo.
func (s *gitScan) hookDir(dir string) (undo func(), ok bool) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || !s.writable(dir) {
		return nil, false
	}
	return s.distrustIf(s.changed(dir)), true
}

// hookFile sets aside p, in a hooks directory, when it is an executable
// file or a symlink (git follows it) the command could have written.
func (s *gitScan) hookFile(p, why string) []string {
	fi, err := os.Lstat(p)
	if err != nil || !s.writable(p) {
		return nil
	}
	if (fi.Mode()&os.ModeSymlink != 0 || fi.Mode().IsRegular() && fi.Mode()&0o111 != 0) && s.changed(p) {
		return s.found(s.setAside(p, why))
	}
	return nil
}

// modules inspects the submodule git directories below dir
// (.git/modules/NAME, where NAME may hold slashes).
func (s *gitScan) modules(dir string, depth int) {
	if s.entries > 2*git.MaxWalkEntries {
		s.pastModules(dir, fmt.Sprintf("a submodules directory past the git scan's bound of %d entries", 2*git.MaxWalkEntries))
		return
	}
	for _, n := range s.repoList(dir, "git modules") {
		p := path.Join(dir, n)
		if fi, err := os.Lstat(p); err != nil || !fi.IsDir() {
			continue
		}
		if _, err := os.Lstat(path.Join(p, "HEAD")); err == nil {
			s.inspectMoved(p, p)
			continue
		}
		if depth+1 >= maxModuleDepth {
			s.pastModules(p, fmt.Sprintf("submodule names nested more than %d levels deep", maxModuleDepth))
			continue
		}
		s.modules(p, depth+1)
	}
}

// worktrees inspects the linked worktrees' git directories
// (.git/worktrees/NAME), each with the worktree its "gitdir" file names.
func (s *gitScan) worktrees(dir string) {
	for _, n := range s.repoList(dir, "git worktrees") {
		w := path.Join(dir, n)
		top := w
		if b, err := readSmall(path.Join(w, "gitdir")); err == nil {
			if t := git.TrimPointer(b); path.IsAbs(t) {
				top = path.Dir(t)
			}
		}
		s.inspectMoved(w, top)
	}
}

// movedInto reports whether the git directory d, reached through a
// pointer, or a directory between it and the git directory (or writable
// root) holding it, changed since the compile: a directory written
// under another name before a recompile and renamed onto the place a
// pointer already named keeps its files' old times (the third review
// renamed a whole fake git directory, .git/worktrees among them, onto a
// .git file's and a commondir's missing target). The ".git" directory
// holding it is not asked: git changes it with every command.
func (s *gitScan) movedInto(d string) bool {
	for i := 0; i < 8 && d != "/" && !git.Name(path.Base(d), ".git"); i++ {
		if !s.writable(d) {
			return false
		}
		if s.changed(d) {
			return true
		}
		d = path.Dir(d)
	}
	return false
}

// inspectMoved inspects the git directory g below a repository's
// modules or worktrees, judging everything in it as the command's when
// its own status changed since the compile: renamed into place (the
// second review moved a submodule's git directory, hooks and all,
// written before a recompile), or completed (a HEAD added).
func (s *gitScan) inspectMoved(g, top string) {
	defer s.distrustIf(s.movedInto(g))()
	s.inspect(g, top, "")
}

// worktreeAway reports whether a core.worktree entry of a configuration
// in git directory gd names a place outside the writable set, or inside
// a git directory: git checks files out there (a merge or pull writes
// the branch's files), so a command that sets it writes on the host,
// later, where it could not (the second review had a later host merge
// write ~/.bash_aliases). git submodule's own (../../../NAME, inside the
// superproject) is neither.
func (s *gitScan) worktreeAway(gd string, e git.ConfigEntry) bool {
	if e.Bool || e.Value == "" {
		return false
	}
	wt := e.Value
	if !path.IsAbs(wt) {
		wt = path.Join(gd, wt)
	}
	wt = path.Clean(wt)
	if slices.ContainsFunc(strings.Split(wt, "/"), func(c string) bool { return git.Name(c, ".git") }) {
		return true
	}
	return !s.writable(wt) && !s.writableLexical(path.Dir(wt))
}

// mentionsCodeKey reports whether a configuration file the parser could
// not read names, anywhere, what git runs: a file named as git's
// configuration that git might read differently is judged by its words
// (the section and key names of git.CodeKeys and git.CodeSuffixes, ext::).
func mentionsCodeKey(b []byte) bool {
	low := strings.ToLower(string(b))
	if strings.Contains(low, "ext::") {
		return true
	}
	for _, k := range git.CodeKeys {
		section, key, _ := strings.Cut(k, ".")
		if key == "*" || strings.HasPrefix(key, "*.") {
			key = strings.TrimPrefix(strings.TrimPrefix(key, "*"), ".")
		}
		if key != "" && strings.Contains(low, key) || key == "" && strings.Contains(low, "["+section) {
			return true
		}
	}
	for _, suf := range git.CodeSuffixes {
		if strings.Contains(low, suf) {
			return true
		}
	}
	return false
}
