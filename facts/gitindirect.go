package facts

import (
	"path"
	"strings"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// GitPointerName is Protected.Name of a git indirection: a ".git" file
// ("gitdir: PATH"), a "commondir" file, or a linked worktree's
// "gitdir"/"commondir" file. Each tells a later host git where to find
// the configuration and hooks it runs, so each stays read-only (H9).
const GitPointerName = "git pointer"

// maxGitWorktrees bounds how many .git/worktrees entries of one
// repository H9 protects.
const maxGitWorktrees = 16

// maxGitPointer bounds how much of a gitdir/commondir file is read.
const maxGitPointer = 4096

// maxPointerComponents bounds the components of a followed pointer.
const maxPointerComponents = 64

// gitIndirect gathers the git indirections inside one writable
// directory (H9, compile time): what exists is listed, what is absent
// in a directory that is recorded (top) is looked at (a precondition).
type gitIndirect struct {
	g     *gatherer
	root  string
	index int
	allow map[string]bool
	seen  map[string]bool
	// record is true for the top repository of the writable directory:
	// absent candidates become preconditions like the other top-level
	// entries (nested repositories are listed, not recorded).
	record bool
	// home is the user's home ("~/" in a git configuration).
	home string
	out  []Protected
	// repos are the git directories followed, each with the worktree it
	// runs hooks in when known (for a relative core.hooksPath).
	repos  []repoWorktree
	looked []string
	// more is true when a repository had more than maxGitWorktrees
	// linked worktrees, or a pointer was too long to follow (past
	// maxGitPointer bytes or maxPointerComponents components): what lies
	// past is not bound, and the policy refuses the directory (H9 fails
	// closed) unless protect.allow accepts it.
	more bool
}

// entry lists p (a candidate of name) when it exists as a file or a
// directory; reports whether it is a plain (link-free) file.
func (c *gitIndirect) entry(name, p string) bool {
	p = path.Clean(p)
	if c.seen[p] || !Within(p, c.root) || p == c.root {
		return false
	}
	c.seen[p] = true
	if c.record && !c.allow[name] {
		c.looked = append(c.looked, p)
	}
	pp := c.g.path(p)
	if pp.Kind != invocation.KindFile && pp.Kind != invocation.KindDir {
		return false
	}
	c.out = append(c.out, Protected{Name: name, Root: c.root, BindIndex: c.index, Path: p, Kind: pp.Kind,
		Symlink: pp.HasLink, Allowed: c.allow[name]})
	return pp.Kind == invocation.KindFile && !pp.HasLink
}

// dotGit handles a repository's ".git" entry: a directory is a git
// directory; a plain file ("gitdir: PATH", relative to the file's
// directory as git reads it) is itself protected and its target, when
// it is a link-free directory inside the writable directory, is
// handled as a git directory.
func (c *gitIndirect) dotGit(dotgit string) {
	pp := c.g.path(dotgit)
	switch {
	case pp.HasLink:
		return
	case pp.Kind == invocation.KindDir:
		c.gitDir(dotgit, true, path.Dir(dotgit))
	case pp.Kind == invocation.KindFile:
		if !c.entry(GitPointerName, dotgit) {
			return
		}
		v, ok := c.pointer(dotgit)
		if !ok || !strings.HasPrefix(v, "gitdir: ") {
			return
		}
		if t, ok := c.resolve(path.Dir(dotgit), v[len("gitdir: "):]); ok {
			c.gitDir(t, true, path.Dir(dotgit))
		}
	}
}

// gitDir handles a git directory gd whose worktree is top ("" when not
// known): its commondir and config.worktree files, the common
// directory's config and hooks (commondir relative to gd), and the
// linked worktrees' gitdir, commondir and config.worktree files (at most
// maxGitWorktrees of them). The config and hooks of gd itself are listed
// too (for a gitdir target; a no-op when already seen). Like git, a
// commondir is followed once (common is false for the common directory
// itself). Each git directory is recorded in repos with its worktrees:
// top, what core.worktree names, and each linked worktree's (its gitdir
// file names the worktree's .git file), for the common directory too,
// whose configuration every worktree reads.
func (c *gitIndirect) gitDir(gd string, common bool, top string) {
	c.repo(gd, top)
	c.entry(".git/config", path.Join(gd, "config"))
	c.entry(".git/hooks", path.Join(gd, "hooks"))
	c.entry(".git/config", path.Join(gd, "config.worktree"))
	cd := path.Join(gd, "commondir")
	if c.entry(GitPointerName, cd) && common {
		if v, ok := c.pointer(cd); ok {
			if cd, ok := c.resolve(gd, v); ok {
				c.gitDir(cd, false, top)
			}
		}
	}
	wt := path.Join(gd, "worktrees")
	if pp := c.g.path(wt); pp.Kind != invocation.KindDir || pp.HasLink {
		return
	}
	names, err := c.g.fs.ReadDir(wt)
	if err != nil {
		return
	}
	for i, n := range names {
		if i == maxGitWorktrees {
			c.more = true
			break
		}
		w := path.Join(wt, n)
		if pp := c.g.path(w); pp.Kind != invocation.KindDir || pp.HasLink {
			continue
		}
		if c.entry(GitPointerName, path.Join(w, "gitdir")) {
			if v, ok := c.pointer(path.Join(w, "gitdir")); ok && path.IsAbs(v) {
				c.repo(w, path.Dir(path.Clean(v)))
				c.repo(gd, path.Dir(path.Clean(v)))
			}
		}
		c.entry(GitPointerName, path.Join(w, "commondir"))
		c.entry(".git/config", path.Join(w, "config.worktree"))
	}
}

// repo records git directory gd with its worktree top ("" when not
// known) and the worktrees its core.worktree names.
func (c *gitIndirect) repo(gd, top string) {
	k := "repo:" + gd + "\x00" + top
	if c.seen[k] {
		return
	}
	c.seen[k] = true
	c.repos = append(c.repos, repoWorktree{dir: gd, top: top})
	for _, wt := range c.g.worktreesOf(gd, c.home) {
		c.repos = append(c.repos, repoWorktree{dir: gd, top: wt})
	}
}

// pointer reads a small gitdir/commondir file, as git does (trailing
// newlines trimmed, then up to a NUL). One of maxGitPointer bytes or more is not followed
// (it may be cut short) and sets more.
func (c *gitIndirect) pointer(p string) (string, bool) {
	b, err := c.g.fs.ReadFile(p, maxGitPointer)
	if err != nil {
		return "", false
	}
	if len(b) >= maxGitPointer {
		c.more = true
		return "", false
	}
	v := strings.TrimRight(string(b), "\r\n")
	if i := strings.IndexByte(v, 0); i >= 0 {
		v = v[:i] // git reads it as a C string
	}
	return v, v != ""
}

// resolve returns the directory a pointer v names (relative to base),
// when it is a link-free directory inside the writable directory. A
// ".." after a symlinked component is not resolved lexically: such a
// pointer is not followed.
func (c *gitIndirect) resolve(base, v string) (string, bool) {
	comps := strings.Split(v, "/")
	if len(comps) > maxPointerComponents {
		c.more = true
		return "", false
	}
	cur := base
	if path.IsAbs(v) {
		cur = "/"
	}
	for _, comp := range comps {
		switch comp {
		case "", ".":
		case "..":
			if c.g.path(cur).HasLink {
				c.linked(cur)
				return "", false
			}
			cur = path.Dir(cur)
		default:
			cur = path.Join(cur, comp)
		}
	}
	if !Within(cur, c.root) || cur == c.root {
		return "", false
	}
	pp := c.g.path(cur)
	if pp.HasLink {
		c.linked(cur)
	}
	return cur, pp.Kind == invocation.KindDir && !pp.HasLink
}

// linked lists a pointer's target p reached through a symlink inside
// the writable directory with Symlink set: it is not followed nor
// bound, and the policy warns that it cannot be kept read-only (a
// command can retarget the link).
func (c *gitIndirect) linked(p string) {
	if !Within(p, c.root) || p == c.root || c.seen["linked:"+p] {
		return
	}
	c.seen["linked:"+p] = true
	c.out = append(c.out, Protected{Name: GitPointerName, Root: c.root, BindIndex: c.index, Path: p,
		Kind: c.g.path(p).Kind, Symlink: true})
}
