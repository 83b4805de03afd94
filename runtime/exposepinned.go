package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"golang.org/x/sys/unix"
)

// PinnedDirName is the directory, beside the invocation file, that holds
// the copies `bwrun --expose-pinned FILE` shows: the caller (the Hermes
// plugin) copies a file there when it is stored for this environment, so
// what a command of the environment reads at FILE is what was stored for
// it, whatever replaced FILE on the host since (Hermes' archive names
// come from tool call ids, which repeat between sessions).
const PinnedDirName = "exposed"

// PinnedName is the name, in the pinned directory, of the copy shown at
// file: the hex SHA-256 of the path.
func PinnedName(file string) string {
	sum := sha256.Sum256([]byte(file))
	return hex.EncodeToString(sum[:])
}

// PinnedDirOf returns the pinned directory of the invocation file at
// invPath (made absolute; "" when it cannot be) (whose directory LoadTrusted has checked: owned by the caller
// or root, outside the sandbox's writable set).
func PinnedDirOf(invPath string) string {
	abs, err := filepath.Abs(invPath)
	if err != nil {
		return "" // OpenPinned refuses
	}
	return filepath.Join(filepath.Dir(abs), PinnedDirName)
}

// OpenPinned opens, for `bwrun --expose-pinned FILE`, the copy pinned for
// file in dir (dir/PinnedName(file)): file must be a path OpenExposed
// would accept (strictly below an expose root; the host file itself is
// not read and may be gone), and the copy a regular file with one link,
// owned by the caller or root and writable by nobody else, reached from
// dir's parent (the invocation's directory) without a symlink. Anything
// else, a missing copy included, is an error: the run never falls back
// to the file as it is on the host now.
func OpenPinned(inv *invocation.Invocation, dir, file string) (*os.File, error) {
	if _, err := exposeRoot(inv, "--expose-pinned", file); err != nil {
		return nil, err
	}
	if dir == "" || !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("--expose-pinned %s: no directory of pinned copies (the invocation must be run from a file)", file)
	}
	const noLinks = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS | unix.RESOLVE_NO_XDEV
	pfd, err := unix.Openat2(unix.AT_FDCWD, filepath.Dir(dir), &unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
	if err != nil {
		return nil, fmt.Errorf("--expose-pinned %s: opening %s without following a symlink: %w", file, filepath.Dir(dir), err)
	}
	defer unix.Close(pfd)
	copyPath := filepath.Join(dir, PinnedName(file))
	fd, err := unix.Openat2(pfd, filepath.Join(filepath.Base(dir), PinnedName(file)), &unix.OpenHow{Flags: unix.O_PATH | unix.O_NOFOLLOW | unix.O_CLOEXEC, Resolve: noLinks})
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil, fmt.Errorf("--expose-pinned %s: no copy was pinned for it (%s is missing): refused, the file as it is on the host now is not shown", file, copyPath)
		}
		return nil, fmt.Errorf("--expose-pinned %s: its copy %s: %w", file, copyPath, err)
	}
	f := os.NewFile(uintptr(fd), copyPath)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		f.Close()
		return nil, fmt.Errorf("--expose-pinned %s: its copy %s: %w", file, copyPath, err)
	}
	uid := uint32(os.Getuid())
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		err = errors.New("not a regular file")
	case st.Nlink != 1:
		err = fmt.Errorf("%d links, not 1", st.Nlink)
	case st.Uid != uid && st.Uid != 0:
		err = fmt.Errorf("owned by uid %d, not by this user or root", st.Uid)
	case st.Mode&0o022 != 0:
		err = fmt.Errorf("writable by group or others (mode %04o)", st.Mode&0o7777)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("--expose-pinned %s: its copy %s is %v: refused", file, copyPath, err)
	}
	return bindable(inv, f, file, st.Size)
}
