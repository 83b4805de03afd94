package runtime

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"golang.org/x/sys/unix"
)

// ExposeDataMax bounds the content `bwrun --expose` copies into the
// sandbox (--ro-bind-data) where bwrap has no --ro-bind-fd.
const ExposeDataMax = 64 << 20

// exposed is one file `bwrun --expose` shows the command.
type exposed struct {
	num  int      // the descriptor number bwrap gets it at
	path string   // its host path, where the sandbox shows it
	file *os.File // the descriptor bwrap binds (O_PATH) or copies
	opt  string   // --ro-bind-fd or --ro-bind-data
}

// OpenExposed opens file for `bwrun --expose FILE`: an absolute, clean
// path strictly below one of inv.Expose.Roots, reached from that root
// with openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS (no symlink anywhere
// on the way, the root included, and no ".."), that is a regular file.
// With --ro-bind-fd (Expose.BindFD) it returns the O_PATH descriptor that
// bwrap binds, so replacing a path component afterwards changes nothing;
// otherwise a sealed memfd holding its content (at most ExposeDataMax
// bytes), for --ro-bind-data.
func OpenExposed(inv *invocation.Invocation, file string) (*os.File, error) {
	root, err := exposeRoot(inv, "--expose", file)
	if err != nil {
		return nil, err
	}
	const noLinks = unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS | unix.RESOLVE_NO_XDEV
	rfd, err := unix.Openat2(unix.AT_FDCWD, root, &unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
	if err != nil {
		return nil, fmt.Errorf("--expose %s: opening its root %s without following a symlink: %w", file, root, err)
	}
	defer unix.Close(rfd)
	fd, err := unix.Openat2(rfd, strings.TrimPrefix(file, root+"/"), &unix.OpenHow{Flags: unix.O_PATH | unix.O_NOFOLLOW | unix.O_CLOEXEC, Resolve: unix.RESOLVE_BENEATH | noLinks})
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV) {
			return nil, fmt.Errorf("--expose %s: a symlink or another file system on the way from %s: refused", file, root)
		}
		return nil, fmt.Errorf("--expose %s: %w", file, err)
	}
	f := os.NewFile(uintptr(fd), file)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		f.Close()
		if err == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return nil, fmt.Errorf("--expose %s: a symlink: refused", file)
		}
		return nil, fmt.Errorf("--expose %s: not a regular file", file)
	}
	return bindable(inv, f, file, st.Size)
}

// exposeRoot returns the expose root of inv that file (named by option
// opt) lies strictly below, or why it may not be shown.
func exposeRoot(inv *invocation.Invocation, opt, file string) (string, error) {
	if inv.Expose == nil || len(inv.Expose.Roots) == 0 {
		return "", fmt.Errorf("%s %s: the invocation declares no roots to expose files from (compile with --sandbox-id)", opt, file)
	}
	if !invocation.IsCleanAbs(file) {
		return "", fmt.Errorf("%s %q: not an absolute, clean path", opt, file)
	}
	root := ""
	for _, r := range inv.Expose.Roots {
		if invocation.Within(file, r) && file != r {
			root = r
		}
	}
	if root == "" {
		return "", fmt.Errorf("%s %s: not below the roots the invocation declares (%s)", opt, file, strings.Join(inv.Expose.Roots, ", "))
	}
	return root, nil
}

// bindable returns what bwrap is handed for the O_PATH descriptor f of
// a regular file of size bytes: f itself where bwrap has --ro-bind-fd,
// else a sealed memfd holding its content (f is closed).
func bindable(inv *invocation.Invocation, f *os.File, file string, size int64) (*os.File, error) {
	if inv.Expose.BindFD {
		return f, nil
	}
	defer f.Close()
	return exposedCopy(f, file, size)
}

// exposedCopy reads the file behind the O_PATH descriptor f (through
// /proc/self/fd, which reopens that very file) into a sealed memfd.
func exposedCopy(f *os.File, file string, size int64) (*os.File, error) {
	if size > ExposeDataMax {
		return nil, fmt.Errorf("--expose %s: %d bytes, more than the %d this bwrap can be given without --ro-bind-fd", file, size, ExposeDataMax)
	}
	src, err := os.Open("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if err != nil {
		return nil, fmt.Errorf("--expose %s: %w", file, err)
	}
	defer src.Close()
	data, err := io.ReadAll(io.LimitReader(src, ExposeDataMax+1))
	if err != nil {
		return nil, fmt.Errorf("--expose %s: %w", file, err)
	}
	if len(data) > ExposeDataMax {
		return nil, fmt.Errorf("--expose %s: more than %d bytes", file, ExposeDataMax)
	}
	return sealedMemfd("bwpolicy-expose", data)
}

// applyExpose opens every --expose file and every --expose-pinned
// copy (in pinnedDir) and adds its bind to inv's arguments, each with a descriptor number above those inv.FDs uses; the
// argument check (CheckArgs) then judges them with the compiled ones.
func (r *runner) applyExpose(files, pinned []string, pinnedDir string) error {
	cp := *r.inv // the caller's invocation stays as it was
	cp.Bwrap.Args = append([]string(nil), r.inv.Bwrap.Args...)
	r.inv = &cp
	next := 3
	for _, fd := range r.inv.FDs {
		next = max(next, fd.Num+1)
	}
	for i, file := range append(slices.Clip(files), pinned...) {
		var f *os.File
		var err error
		if i < len(files) {
			f, err = OpenExposed(r.inv, file)
		} else {
			f, err = OpenPinned(r.inv, pinnedDir, file)
		}
		if err != nil {
			return err
		}
		opt := "--ro-bind-data"
		if r.inv.Expose.BindFD {
			opt = "--ro-bind-fd"
		}
		r.exposed = append(r.exposed, exposed{num: next, path: file, file: f, opt: opt})
		r.inv.Bwrap.Args = insertExpose(r.inv.Bwrap.Args, []string{opt, strconv.Itoa(next), file})
		next++
	}
	return nil
}

// insertExpose inserts op (a bind at a path) into args where bwrap can
// still create its mount point: after every mount at or above that path
// (so none covers it), before the first later --remount-ro at or above
// it (the read-only remount of a hiding tmpfs).
func insertExpose(args, op []string) []string {
	dest := op[len(op)-1]
	at := len(args)
	lastCover := -1
	for i := 0; i < len(args); i += 1 + arity(args[i]) {
		n := arity(args[i])
		if _, isMount := mountOps[args[i]]; isMount && i+n < len(args) && invocation.Within(dest, args[i+n]) {
			lastCover = i
		}
	}
	for i := 0; i < len(args); i += 1 + arity(args[i]) {
		if i > lastCover && args[i] == "--remount-ro" && i+1 < len(args) && invocation.Within(dest, args[i+1]) {
			at = i
			break
		}
	}
	out := make([]string, 0, len(args)+len(op))
	out = append(append(append(out, args[:at]...), op...), args[at:]...)
	return out
}
