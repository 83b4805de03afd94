package runtime

import (
	"errors"
	"fmt"
	"os"
	"path"

	"golang.org/x/sys/unix"
)

// walk lists root breadth-first (getdents, no stat: the entry types come
// with the names; symlinks are never followed) and hands each repository
// it finds to repo: a directory holding ".git", or a bare repository (a
// directory holding HEAD next to config, objects, refs or commondir).
// ".git" directories are not descended into (inspect reads what git
// reads there); read-only and masked paths are skipped (a command cannot write
// them). Past MaxGitScanEntries or MaxGitScanDepth the invocation is
// reported stale.
func (s *gitScan) walk(root string) {
	type item struct {
		dir   string
		depth int
	}
	queue := []item{{root, 0}}
	buf := make([]byte, 32<<10)
	var de dirEntries
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		if err := listDir(it.dir, buf, &de); err != nil {
			if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) {
				continue // vanished, or replaced by a file or symlink
			}
			// Unlistable (mode 0111: git can still look a name up):
			// check .git by name, and report the rest unchecked.
			s.stale(it.dir, fmt.Sprintf("the git scan could not list %s (%v) (H9): what lies below it was not checked; review before running git there", it.dir, err))
			if _, err := os.Lstat(path.Join(it.dir, ".git")); err == nil {
				s.repo(it.dir, path.Join(it.dir, ".git"))
			}
			continue
		}
		s.entries += len(de.names)
		if s.entries > MaxGitScanEntries {
			s.stale(root, fmt.Sprintf("the git scan of %s stopped after %d entries (H9): repositories past them were not checked for code a later host git would run; review before running git there", root, MaxGitScanEntries))
			return
		}
		if de.git {
			s.repo(it.dir, path.Join(it.dir, ".git"))
		} else if de.head && (de.config || de.objects || de.refs || de.commondir) {
			// A bare repository: inspect reads what git reads there. The
			// walk still goes on below it (a command may make any
			// directory look like one).
			s.inspect(it.dir, it.dir, "")
		}
		for i, n := range de.names {
			if !de.isDir[i] || n == ".git" {
				continue
			}
			p := path.Join(it.dir, n)
			if !s.writableLexical(p) {
				continue
			}
			if it.depth+1 > MaxGitScanDepth {
				s.stale(p, fmt.Sprintf("the git scan stopped at %s, %d levels below %s (H9): deeper repositories were not checked; review before running git there", p, MaxGitScanDepth, root))
				continue
			}
			queue = append(queue, item{p, it.depth + 1})
		}
	}
}

// dirEntries is one directory's listing: the names, whether each is a
// directory, and the git-relevant names seen.
type dirEntries struct {
	names                                       []string
	isDir                                       []bool
	git, head, config, objects, refs, commondir bool
}

// listDir lists dir without following a symlink at its last component.
// Entries of unknown type (some filesystems) are lstat'ed.
func listDir(dir string, buf []byte, de *dirEntries) error {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	*de = dirEntries{names: de.names[:0], isDir: de.isDir[:0]}
	return eachDirent(fd, buf, func(nameBytes []byte, typ uint8) {
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
		switch name {
		case ".git":
			de.git = true
		case "HEAD":
			de.head = true
		case "config":
			de.config = true
		case "objects":
			de.objects = true
		case "refs":
			de.refs = true
		case "commondir":
			de.commondir = true
		}
		de.names = append(de.names, name)
		de.isDir = append(de.isDir, typ == unix.DT_DIR)
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
