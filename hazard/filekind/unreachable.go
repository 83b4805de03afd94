package filekind

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Unreachable reports whether err, from lstat(p), means that p is out of
// this process's reach for good: permission denied (EACCES) because a
// directory on the way does not let this user search it, and that
// directory belongs to another user. Only a directory's owner (or root)
// can change its permissions, so no process of this user — a sandboxed
// command included: it runs as the same user, and a user namespace gives
// no power over files whose owner it does not map — can reach p while
// this holds. A directory the user owns denies nothing for good (a chmod
// away), nor does any other error (a symlink loop, a name too long, an
// I/O error): those are not unreachable.
//
// p must be absolute. The directory is found by lstat()ing p's prefixes
// from the root: the last one that can be examined is the one that
// denies search (os.Stat follows a symlink there, to the directory whose
// owner counts).
func Unreachable(p string, err error) bool {
	if !errors.Is(err, syscall.EACCES) || !filepath.IsAbs(p) {
		return false
	}
	dir, ok := DenyingDir(p)
	if !ok {
		return false
	}
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Uid != uint32(os.Geteuid())
}

// DenyingDir returns the deepest prefix of the absolute path p that
// lstat() can examine, when the next one fails with EACCES: the
// directory that denies this user search permission on the way to p.
func DenyingDir(p string) (string, bool) {
	cur := "/"
	for _, name := range strings.Split(strings.TrimPrefix(filepath.Clean(p), "/"), "/") {
		next := filepath.Join(cur, name)
		if _, err := os.Lstat(next); err != nil {
			return cur, errors.Is(err, syscall.EACCES)
		}
		cur = next
	}
	return "", false
}
