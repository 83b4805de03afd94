package watch

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"unsafe"

	"github.com/bwpolicy/bwpolicy/hazard/filekind"
	"golang.org/x/sys/unix"
)

// mask is what every directory is watched for.
const mask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_ATTRIB |
	unix.IN_CLOSE_WRITE | unix.IN_MODIFY | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR

// ErrLimit is the error of a watch the kernel refused for the watch
// limit (fs.inotify.max_user_watches).
var ErrLimit = errors.New("the inotify watch limit (fs.inotify.max_user_watches) is reached")

// tree is the inotify instance and what it watches.
type tree struct {
	fd    int
	enter func(p string) bool
	roots map[string]bool
	// wd → directory, directory → node.
	dirs  map[int32]string
	nodes map[string]*node
	// gone are the watches removed (by us, or their directory deleted):
	// their IN_IGNORED is expected.
	gone   map[int32]bool
	broken string // why the watcher can no longer answer; "" while it can
	gens   *generations
	buf    []byte
}

type node struct {
	wd       int32
	children map[string]bool
}

func newTree(enter func(string) bool) (*tree, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("inotify: %w", err)
	}
	return &tree{fd: fd, enter: enter, roots: map[string]bool{}, dirs: map[int32]string{}, nodes: map[string]*node{},
		gone: map[int32]bool{}, gens: newGenerations(), buf: make([]byte, 64<<10)}, nil
}

// breakWith records the first reason the watcher cannot answer.
func (t *tree) breakWith(why string) {
	if t.broken == "" {
		t.broken = why
	}
}

// addRoot watches root and everything the scan walks below it.
func (t *tree) addRoot(root string) error {
	t.roots[root] = true
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("cannot open %s: %w", root, err)
	}
	return t.addFD(fd, root)
}

// addTree watches the directory name in the directory held open as
// parent (path p) and everything the scan walks below it. A directory
// that is gone or no directory any more is not an error: its parent's
// watch reports what replaced it.
func (t *tree) addTree(parentFD int, name, p string) error {
	fd, err := unix.Openat(parentFD, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) {
			return nil
		}
		return fmt.Errorf("cannot open %s: %w", p, err)
	}
	return t.addFD(fd, p)
}

// addPath is addTree for a path (its parent is opened as it is now).
func (t *tree) addPath(p string) error {
	pfd, err := unix.Open(path.Dir(p), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
			return nil // the parent went too: its own parent's watch says so
		}
		return fmt.Errorf("cannot open %s: %w", path.Dir(p), err)
	}
	defer unix.Close(pfd)
	return t.addTree(pfd, path.Base(p), p)
}

// addFD watches the directory open as fd (path p; fd is closed), then
// lists it and watches its subdirectories the scan walks into: watched
// first, listed after, so that an entry made in between is reported.
func (t *tree) addFD(fd int, p string) error {
	defer unix.Close(fd)
	if err := checkLocal(fd, p); err != nil {
		return err
	}
	wd, err := unix.InotifyAddWatch(t.fd, "/proc/self/fd/"+strconv.Itoa(fd), mask)
	if err != nil {
		if errors.Is(err, unix.ENOSPC) {
			return ErrLimit
		}
		return fmt.Errorf("cannot watch %s: %w", p, err)
	}
	w := int32(wd)
	if old, ok := t.dirs[w]; ok && old != p {
		// The same directory under two names (a bind mount on the
		// host): the kernel reports its changes under one of them only.
		// A rename is seen (IN_MOVED_FROM forgets the old name first).
		return fmt.Errorf("%s and %s are the same directory: the watcher cannot tell which changed", old, p)
	}
	t.dirs[w] = p
	delete(t.gone, w)
	if n := t.nodes[p]; n == nil {
		t.nodes[p] = &node{wd: w}
	} else {
		n.wd = w
	}
	if parent := t.nodes[path.Dir(p)]; parent != nil && !t.roots[p] {
		if parent.children == nil {
			parent.children = map[string]bool{}
		}
		parent.children[p] = true
	}
	var subdirs []string
	if err := eachDirent(fd, t.buf, func(name string, typ byte) {
		if typ == unix.DT_DIR || typ == unix.DT_UNKNOWN {
			subdirs = append(subdirs, name)
		}
	}); err != nil {
		return fmt.Errorf("cannot list %s: %w", p, err)
	}
	for _, n := range subdirs {
		c := p + "/" + n
		if p == "/" {
			c = "/" + n
		}
		if !t.enter(c) {
			continue
		}
		if err := t.addTree(fd, n, c); err != nil {
			return err
		}
	}
	return nil
}

// forget removes the watches of p and everything below it.
func (t *tree) forget(p string) {
	n := t.nodes[p]
	if n == nil {
		return
	}
	for c := range n.children {
		t.forget(c)
	}
	delete(t.nodes, p)
	if parent := t.nodes[path.Dir(p)]; parent != nil {
		delete(parent.children, p)
	}
	if t.dirs[n.wd] == p {
		delete(t.dirs, n.wd)
		t.gone[n.wd] = true
		_, _ = unix.InotifyRmWatch(t.fd, uint32(n.wd)) // EINVAL: the kernel removed it already
	}
}

// drain reads every queued event (until EAGAIN) and applies it.
func (t *tree) drain() {
	for {
		n, err := unix.Read(t.fd, t.buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			if err != nil && err != unix.EAGAIN {
				t.breakWith("reading inotify events: " + err.Error())
			}
			return
		}
		t.events(t.buf[:n])
	}
}

// events applies the events of one read. The buffer is copied first:
// applying one may place watches, which reads directories into t.buf.
func (t *tree) events(b []byte) {
	b = append([]byte(nil), b...)
	for len(b) >= unix.SizeofInotifyEvent {
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&b[0]))
		end := unix.SizeofInotifyEvent + int(ev.Len)
		if end > len(b) {
			t.breakWith("a truncated inotify event")
			return
		}
		name := ""
		if ev.Len > 0 {
			raw := b[unix.SizeofInotifyEvent:end]
			for i, c := range raw {
				if c == 0 {
					raw = raw[:i]
					break
				}
			}
			name = string(raw)
		}
		t.apply(ev.Wd, ev.Mask, name)
		b = b[end:]
	}
}

// apply is one event: wd's directory, the event's mask and the name of
// the entry (none for an event of the directory itself).
func (t *tree) apply(wd int32, m uint32, name string) {
	if m&unix.IN_Q_OVERFLOW != 0 {
		t.breakWith("the inotify queue overflowed (fs.inotify.max_queued_events)")
		return
	}
	dir, ok := t.dirs[wd]
	if m&unix.IN_IGNORED != 0 {
		if !t.gone[wd] && ok {
			t.breakWith("the kernel removed the watch of " + dir)
		}
		delete(t.gone, wd)
		return
	}
	if !ok {
		return // a watch removed: its directory was marked when it went
	}
	if m&unix.IN_UNMOUNT != 0 {
		t.breakWith("the filesystem of " + dir + " was unmounted")
		return
	}
	open := t.gens.open
	if name == "" {
		switch {
		case m&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF) != 0 && t.roots[dir]:
			t.breakWith("the writable directory " + dir + " was moved or deleted")
		case m&unix.IN_DELETE_SELF != 0:
			open.Mark(dir, Tree)
			t.forget(dir)
		case m&unix.IN_MOVE_SELF != 0:
			// Its parent's IN_MOVED_FROM names it, and says where.
		default:
			open.Mark(dir, Self)
		}
		return
	}
	open.Mark(dir, Self)
	if m&unix.IN_ISDIR == 0 {
		return
	}
	c := dir + "/" + name
	if dir == "/" {
		c = "/" + name
	}
	switch {
	case m&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0:
		open.Mark(c, Tree)
		if t.enter(c) {
			t.forget(c) // a directory replaced under the same name
			if err := t.addPath(c); err != nil {
				t.breakWith(err.Error())
			}
		}
	case m&(unix.IN_DELETE|unix.IN_MOVED_FROM) != 0:
		open.Mark(c, Tree)
		t.forget(c)
	case m&unix.IN_ATTRIB != 0:
		// Its mode may make it listable, or not: walked again.
		open.Mark(c, Tree)
		if t.enter(c) && t.nodes[c] == nil {
			if err := t.addPath(c); err != nil {
				t.breakWith(err.Error())
			}
		}
	}
}

// eachDirent lists the directory open as fd from its start
// (filekind.EachDirent), calling f with each entry's name and type
// (DT_UNKNOWN on filesystems that keep none), "." and ".." left out.
func eachDirent(fd int, buf []byte, f func(name string, typ byte)) error {
	if _, err := unix.Seek(fd, 0, 0); err != nil {
		return err
	}
	return filekind.EachDirent(fd, buf, func(name []byte, typ uint8) {
		if s := string(name); s != "." && s != ".." {
			f(s, typ)
		}
	})
}
