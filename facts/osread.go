package facts

// This file is OS's reads of a directory and a file, with the system
// calls and nothing else: os.Open registers every descriptor with the
// poller and asks its flags (an epoll_ctl and several fcntl calls that
// fail or change nothing on a directory or a regular file), which a
// compile that opens some sixty paths pays for on each.

import (
	"errors"
	"io/fs"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/bwpolicy/bwpolicy/hazard/filekind"
)

// openRead opens p to read, as os.Open does (following a final
// symlink) but without blocking: O_NONBLOCK makes opening a FIFO with
// no writer return at once (the callers refuse anything but a directory
// or a regular file); reading a directory or a regular file ignores it.
func openRead(p string) (int, error) {
	for {
		fd, err := unix.Open(p, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return -1, &fs.PathError{Op: "open", Path: p, Err: err}
		}
		return fd, nil
	}
}

// ReadDir implements FS: the names alone (getdents gives them, "." and
// ".." left out), sorted as os.ReadDir would, without a DirEntry for
// each. The errors are those of os.Open and Readdirnames.
func (OS) ReadDir(p string) ([]string, error) {
	fd, err := openRead(p)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	b := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(b)
	var names []string
	err = filekind.EachDirent(fd, *b, func(name []byte, _ uint8) {
		if n := string(name); n != "." && n != ".." {
			names = append(names, n)
		}
	})
	if err != nil {
		return nil, &fs.PathError{Op: "readdirent", Path: p, Err: err}
	}
	slices.Sort(names)
	return names, nil
}

// ReadFile implements FS: it reads at most limit bytes, and only from a
// regular file (never a FIFO or a device a command could block it on).
func (OS) ReadFile(p string, limit int) ([]byte, error) {
	fd, err := openRead(p)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	for err = unix.Fstat(fd, &st); err == unix.EINTR; err = unix.Fstat(fd, &st) {
	}
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: p, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, &fs.PathError{Op: "read", Path: p, Err: errors.New("not a regular file")}
	}
	// One buffer of the file's size (plus one byte, to see it grew), not
	// io.ReadAll's doubling from 512 bytes: the contents check reads
	// dozens of small files per compile.
	buf := make([]byte, 0, min(st.Size, int64(limit))+1)
	if st.Size == 0 {
		// A file the kernel writes as it is read (/proc/self/mountinfo,
		// /proc/net/unix) has size 0 whatever it holds: a first read
		// into a block on the stack tells an empty file (nothing
		// allocated) from one read on from there, doubling, rather than
		// from one byte (a dozen reads of mountinfo).
		var first [4096]byte
		n, err := readFd(fd, first[:min(len(first), limit)])
		if err != nil {
			return buf, &fs.PathError{Op: "read", Path: p, Err: err}
		}
		if n == 0 || n >= limit {
			return append(buf, first[:n]...), nil
		}
		buf = append(make([]byte, 0, min(2*len(first), limit)+1), first[:n]...)
	}
	for {
		n, err := readFd(fd, buf[len(buf):min(cap(buf), limit)])
		if err != nil {
			return buf, &fs.PathError{Op: "read", Path: p, Err: err}
		}
		buf = buf[:len(buf)+n]
		switch {
		case n == 0 || len(buf) >= limit:
			return buf, nil
		case len(buf) == cap(buf):
			buf = append(buf, 0)[:len(buf)] // grew since the stat
		}
	}
}

// readFd is read(2) of fd into b, again when a signal interrupts it.
func readFd(fd int, b []byte) (int, error) {
	for {
		n, err := unix.Read(fd, b)
		if err != unix.EINTR {
			return n, err
		}
	}
}
