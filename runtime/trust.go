package runtime

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"golang.org/x/sys/unix"
)

// This file holds the checks of the invocation file itself: who can
// write it, and whether the sandbox it describes could. A command must
// never be able to rewrite the policy of the next one.

// maxWalk bounds the directories LoadTrusted walks up from the file.
const maxWalk = 256

// LoadTrusted is Load for an invocation that is about to be run (bwrun
// uses it): its Warnings and Explain are checked but not kept
// (DecodeFileToRun). Before decoding, the open file (fstat, never the path again)
// must be a regular file with one link, owned by the caller or root and
// not writable by group or others, as ssh requires of its configuration.
// Every directory above it must be owned by the caller or root and not
// writable by group or others unless sticky (like /tmp), so that nobody
// else can replace it. And it must lie outside the sandbox's own writable
// set: neither the file nor a directory above it may be a read-write
// bind's host source, unless a mask or a read-only bind lands between
// them (with every directory in between a mount point, so nothing can be
// renamed); a directory reached through another name (a symlink or a
// bind mount of the source) is refused.
func LoadTrusted(path string) (*invocation.Invocation, error) {
	inv, _, err := LoadTrustedData(path)
	return inv, err
}

// LoadTrustedData is LoadTrusted that also returns the bytes read (the
// decoded strings share them; bwrun's journal keeps a copy: BeginEnv).
// The path is opened without following a symbolic link in any
// component (OpenNoSymlinks), so the directories checkLocation walks up
// are the ones the caller named.
func LoadTrustedData(path string) (*invocation.Invocation, []byte, error) {
	f, st, err := openInvocation(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	data, inv, err := invocation.ReadFileToRun(f, path)
	if err != nil {
		return nil, nil, err
	}
	if err := checkLocation(f, "invocation "+path, st, inv); err != nil {
		return nil, nil, err
	}
	return inv, data, nil
}

// CheckInvocationFile runs LoadTrusted's checks of the file at path
// against inv, its decoded content (`bwpolicy verify` reports them).
func CheckInvocationFile(path string, inv *invocation.Invocation) error {
	f, st, err := openInvocation(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return checkLocation(f, "invocation "+path, st, inv)
}

// openInvocation opens the invocation at path (never blocking on a FIFO)
// and checks the open file's type, owner, mode and links.
func openInvocation(path string) (*os.File, *unix.Stat_t, error) {
	fd, err := OpenNoSymlinks(path, unix.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read invocation: %w", &os.PathError{Op: "open", Path: path, Err: err})
	}
	f := os.NewFile(uintptr(fd), path)
	st := &unix.Stat_t{}
	if err := unix.Fstat(fd, st); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("cannot read invocation %s: %w", path, err)
	}
	if err := checkInvocationFile(path, st); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

func checkInvocationFile(path string, st *unix.Stat_t) error {
	uid := uint32(os.Geteuid())
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return fmt.Errorf("invocation %s is not a regular file; write it with `bwpolicy compile -o FILE`", path)
	case st.Uid != 0 && st.Uid != uid:
		return fmt.Errorf("invocation %s is owned by uid %d, neither the caller (uid %d) nor root: its owner decides what the sandbox allows; compile your own with `bwpolicy compile -o FILE`", path, st.Uid, uid)
	case st.Mode&0o022 != 0:
		return fmt.Errorf("invocation %s is writable by group or others (mode %#o): any of them could rewrite the sandbox; `chmod go-w %s` (or recompile)", path, st.Mode&0o7777, path)
	case st.Nlink != 1:
		return fmt.Errorf("invocation %s has %d hard links: another name for it could lie where a sandbox can write; give it a file of its own (recompile with `bwpolicy compile -o FILE`)", path, st.Nlink)
	}
	return nil
}

type devIno struct{ dev, ino uint64 }

// checkLocation walks up from the file's directory (the file is named
// label in messages: "invocation PATH", "status file PATH") (by descriptor: each
// step opens ".." of the last) and checks each directory's owner and
// mode, and whether the file or one of them is the host source of a
// read-write bind of inv (see LoadTrusted).
func checkLocation(f *os.File, label string, st *unix.Stat_t, inv *invocation.Invocation) error {
	real, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if err != nil || !filepath.IsAbs(real) || strings.HasSuffix(real, " (deleted)") {
		return fmt.Errorf("%s: cannot tell which directory holds it (is /proc mounted?)", label)
	}
	// The mount table is built only when the file or a directory above
	// it is the source of a read-write bind (an invocation kept in the
	// working directory): usually none is, and a table of a home
	// layout's hundreds of mounts costs a fresh process its pages.
	ids := rwSourceIDs(inv)
	var c *argCheck
	var rw map[devIno][]int // host source -> read-write mounts of it
	outside := func(p string, id devIno) error {
		if !ids[id] {
			return nil
		}
		if c == nil {
			c, rw = writableMounts(inv)
		}
		if len(rw[id]) == 0 {
			return fmt.Errorf("%s: the read-write bind source %s changed while it was checked; run again", label, p)
		}
		return c.outsideWritable(label, real, p, id, rw)
	}
	if err := outside(real, devIno{st.Dev, st.Ino}); err != nil {
		return err
	}
	dir := filepath.Dir(real)
	dfd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("%s: opening its directory %s: %v", label, dir, err)
	}
	defer func() { unix.Close(dfd) }()
	var ds unix.Stat_t
	if err := unix.Fstatat(dfd, filepath.Base(real), &ds, unix.AT_SYMLINK_NOFOLLOW); err != nil || ds.Dev != st.Dev || ds.Ino != st.Ino {
		return fmt.Errorf("%s was moved while it was read; run again", label)
	}
	uid := uint32(os.Geteuid())
	for n := 0; ; n++ {
		if n > maxWalk {
			return fmt.Errorf("%s: more than %d directories above it", label, maxWalk)
		}
		if err := unix.Fstat(dfd, &ds); err != nil {
			return fmt.Errorf("%s: %s: %v", label, dir, err)
		}
		if ds.Uid != 0 && ds.Uid != uid {
			return fmt.Errorf("directory %s, which holds %s, is owned by uid %d, neither the caller (uid %d) nor root: its owner could replace the invocation; keep invocations in a directory of your own", dir, label, ds.Uid, uid)
		}
		if ds.Mode&0o022 != 0 && ds.Mode&unix.S_ISVTX == 0 {
			return fmt.Errorf("directory %s, which holds %s, is writable by group or others (mode %#o) and not sticky: they could replace the invocation; `chmod go-w %s` or keep invocations elsewhere", dir, label, ds.Mode&0o7777, dir)
		}
		if err := outside(dir, devIno{ds.Dev, ds.Ino}); err != nil {
			return err
		}
		if dir == "/" {
			return nil
		}
		up, err := unix.Openat(dfd, "..", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("%s: opening the parent of %s: %v", label, dir, err)
		}
		unix.Close(dfd)
		dfd, dir = up, filepath.Dir(dir)
	}
}

// rwSourceIDs returns the identities of the host sources of inv's
// read-write binds, read from the arguments as argCheck.parse reads them
// (stopping where it stops) without building its tables.
func rwSourceIDs(inv *invocation.Invocation) map[devIno]bool {
	ids := map[devIno]bool{}
	args := inv.Bwrap.Args
	for i := 0; i < len(args); i++ {
		n, ok := invocation.BwrapArity(args[i])
		if !ok || i+n >= len(args) {
			break
		}
		if mountOps[args[i]] == mountRW && n >= 2 && args[i+1] != "" {
			var s unix.Stat_t
			if unix.Stat(args[i+1], &s) == nil {
				ids[devIno{s.Dev, s.Ino}] = true
			}
		}
		i += n
	}
	return ids
}

// writableMounts parses inv's arguments and maps the identity of each
// read-write bind's host source to its mounts.
func writableMounts(inv *invocation.Invocation) (*argCheck, map[devIno][]int) {
	c := newArgCheck(inv)
	c.parse()
	rw := map[devIno][]int{}
	for k, m := range c.mounts {
		if m.kind != mountRW || m.src == "" {
			continue
		}
		var s unix.Stat_t
		if unix.Stat(m.src, &s) == nil {
			id := devIno{s.Dev, s.Ino}
			rw[id] = append(rw[id], k)
		}
	}
	return c, rw
}

// outsideWritable checks the file (at host path real) against the
// read-write binds whose host source is the file or directory at host
// path p with identity id: the file must not be writable, nor its
// directories renamable, through them.
func (c *argCheck) outsideWritable(label, real, p string, id devIno, rw map[devIno][]int) error {
	for _, k := range rw[id] {
		m := c.mounts[k]
		if m.src != p {
			return fmt.Errorf("%s lies in %s, which the sandbox can write as %s (the read-write bind of %s at args[%d]): a command could rewrite it; keep invocations outside the working directory and the read-write binds (for example in $HERMES_HOME/sandboxes/bwrap-ID/)", label, p, m.dest, m.src, m.i)
		}
		// The sandbox shows the file at q; s is the mount that serves q
		// (m itself, or a later one at or below m's destination).
		q := filepath.Join(m.dest, strings.TrimPrefix(real, p))
		s := c.cover(q)
		switch {
		case s.i == m.i:
			return fmt.Errorf("%s lies inside the sandbox's writable set (%s is bound read-write at %s, args[%d]): a command could rewrite it; keep invocations outside the working directory and the read-write binds (for example in $HERMES_HOME/sandboxes/bwrap-ID/)", label, m.src, m.dest, m.i)
		case s.dest == m.dest || !invocation.Within(s.dest, m.dest):
			continue // a later mount at or above the bind's place covers all of it
		}
		for d := filepath.Dir(s.dest); d != m.dest && invocation.Within(d, m.dest); d = filepath.Dir(d) {
			if j, ok := c.last[d]; !ok || c.mounts[j].i < m.i {
				return fmt.Errorf("%s lies below %s, which a command could rename in the writable %s (args[%d]) and so replace the invocation; keep invocations outside the working directory and the read-write binds", label, d, m.dest, m.i)
			}
		}
	}
	return nil
}
