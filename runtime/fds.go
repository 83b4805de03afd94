package runtime

import (
	"fmt"
	"os"
	"strconv"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"golang.org/x/sys/unix"
)

// fdSet holds the descriptors handed to bwrap and the runtime's ends of
// its pipes.
type fdSet struct {
	// extra is exec's ExtraFiles: extra[i] becomes fd 3+i in bwrap; nil
	// entries are closed in the child (no gap is filled with an open fd
	// that would leak into the sandbox).
	extra []*os.File
	// child holds every file in extra, closed once bwrap has started.
	child []*os.File

	info   *os.File // read end of --info-fd
	block  *os.File // write end of --block-fd
	status *os.File // read end of --json-status-fd
}

// openFDs opens the descriptors inv.FDs lists, at exactly their numbers.
func openFDs(inv *invocation.Invocation) (*fdSet, error) {
	s := &fdSet{}
	if len(inv.FDs) == 0 {
		return s, nil
	}
	top := 0
	for _, fd := range inv.FDs {
		top = max(top, fd.Num)
	}
	s.extra = make([]*os.File, top-2)
	for _, fd := range inv.FDs {
		var child *os.File
		var err error
		switch fd.Kind {
		case invocation.FDEmpty:
			// bwrap's --ro-bind-data/--bind-data/--file read to EOF: one
			// fresh /dev/null per use.
			child, err = os.Open(os.DevNull)
		case invocation.FDSeccomp:
			child, err = seccompFile(inv.Seccomp.Program)
		case invocation.FDInfo:
			s.info, child, err = os.Pipe()
		case invocation.FDStatus:
			s.status, child, err = os.Pipe()
		case invocation.FDBlock:
			child, s.block, err = blockPipe()
		default:
			err = fmt.Errorf("unknown fd kind %q", fd.Kind)
		}
		if err != nil {
			s.closeAll()
			return nil, fmt.Errorf("fd %d (%s): %w", fd.Num, fd.Kind, err)
		}
		s.extra[fd.Num-3] = child
		s.child = append(s.child, child)
	}
	return s, nil
}

// blockPipe returns the --block-fd pipe: bwrap's end and the runtime's
// write end. bwrap's end is opened read-write (through /proc/self/fd), so
// it is a writer of the pipe itself: if the runtime dies before releasing
// bwrap, bwrap's read never sees end-of-file and the command never runs
// (with a plain read end, EOF would release it without its rlimits and,
// since bwrap only arms --die-with-parent after that point, it would keep
// running after the runtime's death).
func blockPipe() (child, release *os.File, err error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	rw, err := os.OpenFile("/proc/self/fd/"+strconv.Itoa(int(r.Fd())), os.O_RDWR, 0)
	if err != nil {
		// No /proc: fall back to the plain read end.
		return r, w, nil
	}
	r.Close()
	return rw, w, nil
}

// seccompFile returns a sealed memfd holding prog at offset 0. A memfd
// (unlike a pipe) cannot fill up and block, whatever the program's size.
func seccompFile(prog []byte) (*os.File, error) {
	return sealedMemfd("bwpolicy-seccomp", prog)
}

// sealedMemfd returns a memfd holding data, positioned at its start and
// sealed against writes and size changes.
func sealedMemfd(name string, data []byte) (*os.File, error) {
	fd, err := unix.MemfdCreate(name, unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, fmt.Errorf("memfd_create: %w", err)
	}
	f := os.NewFile(uintptr(fd), name)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(0, 0); err != nil {
		f.Close()
		return nil, err
	}
	_, _ = unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, unix.F_SEAL_WRITE|unix.F_SEAL_GROW|unix.F_SEAL_SHRINK|unix.F_SEAL_SEAL)
	return f, nil
}

// add hands f to bwrap as descriptor num (above every inv.FDs number);
// it is closed with the other child ends.
func (s *fdSet) add(num int, f *os.File) {
	for len(s.extra) < num-2 {
		s.extra = append(s.extra, nil)
	}
	s.extra[num-3] = f
	s.child = append(s.child, f)
}

// closeChild closes the child's ends (after bwrap has started).
func (s *fdSet) closeChild() {
	for _, f := range s.child {
		f.Close()
	}
	s.child = nil
	s.extra = nil
}

// closeAll closes everything.
func (s *fdSet) closeAll() {
	s.closeChild()
	for _, f := range []*os.File{s.info, s.block, s.status} {
		if f != nil {
			f.Close()
		}
	}
}
