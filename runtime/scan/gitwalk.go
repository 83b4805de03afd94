package scan

import (
	"fmt"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/bwpolicy/bwpolicy/hazard/filekind"
	"github.com/bwpolicy/bwpolicy/hazard/git"
	"golang.org/x/sys/unix"
)

// walk lists root with git.RepoWalk (getdents, no stat: the entry types
// come with the names) and hands each repository it finds to repo: a
// directory holding ".git", or a bare repository. Read-only and masked
// paths are skipped (a command cannot write them). Past
// git.MaxWalkEntries, directories a command created are set aside whole
// (pastEntries); past git.MaxWalkDepth, a directory changed since the
// compile is set aside whole, another one reported stale.
func (s *gitScan) walk(root string) {
	buf := make([]byte, 32<<10)
	w := s.repoWalk(root, buf)
	if s.record {
		// The recording reaches as far as a scan does (the bound, then
		// as much again past it) without setting anything aside.
		w.Past, w.Max = nil, 2*git.MaxWalkEntries
	}
	if !w.Walk(root) && !s.over {
		s.stale(root, fmt.Sprintf("the git scan of %s stopped after %d entries, and %d more in directories that existed when compiling (H9): repositories past them were not checked for code a later host git would run; review before running git there", root, git.MaxWalkEntries, git.MaxWalkEntries))
	}
}

// repoWalk is the scan's walk of root, listing with buf.
func (s *gitScan) repoWalk(root string, buf []byte) git.RepoWalk {
	return git.RepoWalk{
		List:  func(dir string, de *git.DirEntries) error { return s.listIndexed(dir, buf, de) },
		Enter: s.enter,
		Visit: s.visit,
		Unlisted: func(dir string, err error) {
			// Unlistable (mode 0111: git can still look a name up).
			// Changed since the compile (a chmod sets ctime), it is the
			// command's: set aside whole, git reaches nothing below it.
			if s.grown(dir) && s.setAside(dir, "a directory the git scan cannot list ("+err.Error()+")") != "" {
				return
			}
			// Else check .git by name, and report the rest unchecked.
			s.stale(dir, fmt.Sprintf("the git scan could not list %s (%v) (H9): what lies below it was not checked; review before running git there", dir, err))
			if _, err := os.Lstat(path.Join(dir, ".git")); err == nil {
				s.repo(dir, path.Join(dir, ".git"))
			}
			s.inspect(dir, dir, "") // the directory itself, as a bare repository
		},
		TooDeep: func(p string) {
			// Made since the compile, it is the command's: set aside
			// whole, git reaches nothing below it.
			if s.grown(p) && s.setAside(p, fmt.Sprintf("a directory more than %d levels below %s, past the git scan's bound", git.MaxWalkDepth, root)) != "" {
				return
			}
			s.stale(p, fmt.Sprintf("the git scan stopped at %s, %d levels below %s (H9): deeper repositories were not checked; review before running git there", p, git.MaxWalkDepth, root))
		},
		Entries: &s.entries,
		Past:    s.pastEntries,
		Stop:    func() bool { return s.over },
	}
}

// visit is the walk's visit of directory dir, listed as de: the
// repository it holds, or is, or may become, and its symlinks into git
// directories. What it does follows from de alone and from what it reads
// afresh: a directory whose listing did not change since the last scan
// and whose visit does nothing (kept) need not be visited again
// (scanchanges.go).
func (s *gitScan) visit(dir string, de *git.DirEntries) {
	if s.tick(dir) {
		return
	}
	if s.visits != nil && (de.Git || de.Bare() || de.Staged() || len(de.Links) > 0) {
		s.keepVisit(dir, de)
	}
	if de.Git {
		s.repo(dir, path.Join(dir, ".git"))
	}
	if de.Bare() {
		// inspect reads what git reads there.
		s.inspect(dir, dir, "")
	} else if de.Staged() {
		s.stagedDir(dir)
	}
	for _, i := range de.Links {
		s.linkIntoGitDir(path.Join(dir, de.Names[i]))
	}
}

// enter reports whether the walk goes into directory p: one a command
// can write, or an earlier one may have (earlierWritable); recording,
// any in the roots.
func (s *gitScan) enter(p string) bool {
	if s.record {
		return s.inRoots(p)
	}
	return s.writableSibling(p) || s.earlierWritable(p)
}

// writableSibling is writableLexical(p) for the walk, which asks about
// a directory's children one after another: where every read-write bind
// is at its own path (bwpolicy's binds are) and p is no mount's source
// or destination, which mounts cover p, and how, follows from its
// parent alone, so p's siblings that are no mount point either get the
// answer computed for the first of them (the mounts are ~100 in a large
// tree; each answer looks through all of them).
func (s *gitScan) writableSibling(p string) bool {
	if s.points == nil {
		s.points, s.sameRW = map[string]bool{}, true
		for _, m := range s.mounts {
			s.points[m.src], s.points[m.dest] = true, true
			s.sameRW = s.sameRW && (!m.rw || m.src == m.dest)
		}
	}
	if !s.sameRW || s.points[p] {
		return s.writableLexical(p)
	}
	parent := path.Dir(p)
	if parent == s.siblingOf && s.siblingOf != "" {
		return s.siblingOK
	}
	ok := s.writableLexical(p)
	s.siblingOf, s.siblingOK = parent, ok
	return ok
}

// linkIntoGitDir checks what a host git run in the directory symlink
// link would discover, when the link leads inside a ".git" directory
// (which the walk does not enter; elsewhere the walk reaches the target
// itself): git works from the physical directory, so for the target and
// each of its parents below that ".git", a ".git" entry there (a
// repository nested inside the git directory) and the directory itself
// as a bare repository, with the link set aside when code was found
// there. A link the command made leads where it chose: what it leads to
// is judged as the command's, whatever the ledger says. No place is
// looked at twice (linkTarget): a thousand links into the same deep
// directory of a .git cost one look at it.
func (s *gitScan) linkIntoGitDir(link string) {
	if s.over {
		return
	}
	t := s.resolveLink(link)
	if t == "" {
		return
	}
	mine := s.changed(link)
	undo := s.distrustIf(mine)
	found := s.linkTarget(t, mine)
	undo()
	if found != "" && s.writable(link) {
		s.setAside(link, "a symlink into "+t+", where code was set aside (at "+found+")")
	}
}

// resolveLink returns the directory inside a git directory that link
// leads to, "" when it leads elsewhere. Links of the same text in the
// same directory lead to the same place (the sandbox is dead: nothing
// changes while the scan runs), which is resolved once.
func (s *gitScan) resolveLink(link string) string {
	text, err := os.Readlink(link)
	if err != nil {
		return ""
	}
	k := [2]string{text, path.Dir(link)}
	if path.IsAbs(text) {
		k[1] = ""
	}
	if t, ok := s.resolved[k]; ok {
		return t
	}
	if s.resolved == nil {
		s.resolved = map[[2]string]string{}
	}
	t, err := s.realpath(link)
	if err != nil || !slices.ContainsFunc(strings.Split(t, "/"), func(c string) bool { return git.Name(c, ".git") }) {
		t = ""
	} else if fi, err := os.Stat(t); err != nil || !fi.IsDir() {
		t = ""
	}
	s.resolved[k] = t
	return t
}

// linkTarget looks at t, inside a git directory, and each parent of it
// below that git directory, each once per scan (for a link the command
// made and once for the others: mine): a place already looked at answers
// for itself and every place above it. It returns a place where code
// was set aside, "" when none.
func (s *gitScan) linkTarget(t string, mine bool) string {
	if s.linked == nil {
		s.linked = map[linkKey]string{}
	}
	var todo []string
	found := ""
	for d := t; !git.Name(path.Base(d), ".git") && d != "/"; d = path.Dir(d) {
		if f, ok := s.linked[linkKey{d, mine}]; ok {
			found = f
			break
		}
		todo = append(todo, d)
	}
	// From the top down, so that each place's answer covers those
	// above it.
	for i := len(todo) - 1; i >= 0; i-- {
		d := todo[i]
		before := len(s.rep.SetAside)
		s.repo(d, path.Join(d, ".git"))
		s.inspect(d, d, "")
		if found == "" && len(s.rep.SetAside) > before {
			found = d
		}
		s.linked[linkKey{d, mine}] = found
	}
	return found
}

// linkKey is a place linkTarget looked at, and whether through a link
// the command made.
type linkKey struct {
	dir  string
	mine bool
}

// ListDir lists dir into de (reset first) without following a symlink
// at its last component, with getdents and buf; entries of unknown type
// (some filesystems) are lstat'ed.
func ListDir(dir string, buf []byte, de *git.DirEntries) error {
	return listDir(dir, unix.O_NOFOLLOW, buf, de)
}

// listDir is ListDir with extra open flags (O_NOFOLLOW, or none to
// follow a symlink at dir's last component, as python does).
func listDir(dir string, flags int, buf []byte, de *git.DirEntries) error {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|flags, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	de.Reset()
	return filekind.EachDirent(fd, buf, func(nameBytes []byte, typ uint8) {
		name := string(nameBytes)
		if name == "." || name == ".." {
			return
		}
		if typ == unix.DT_UNKNOWN {
			var st unix.Stat_t
			if unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
				typ = dtype(st.Mode)
			}
		}
		de.Add(name, typ == unix.DT_DIR)
		if typ == unix.DT_LNK {
			de.Links = append(de.Links, len(de.Names)-1)
		}
	})
}

func dtype(mode uint32) uint8 {
	switch mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return unix.DT_DIR
	case unix.S_IFLNK:
		return unix.DT_LNK
	case unix.S_IFREG:
		return unix.DT_REG
	}
	return unix.DT_UNKNOWN
}
