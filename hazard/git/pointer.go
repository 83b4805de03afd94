package git

import (
	"os"
	"path"
	"strings"
)

// maxPointerHops bounds the symlinks ProcDependent follows (the
// kernel's own bound is 40).
const maxPointerHops = 40

// ProcDependent reports whether the absolute path p, resolved as the
// kernel does (symlinks as they come, ".." after them), passes through
// /proc or /dev/fd (/proc/self/cwd, /dev/fd/N, /dev/stdin): what such a
// path leads to depends on the process that resolves it, so bwrun's
// resolution says nothing of where a later host git, in another
// working directory, lands. The scan sets aside a git pointer (a .git
// file or symlink, a commondir) a command wrote that leads there.
func ProcDependent(p string) bool {
	rest := strings.Split(p, "/")
	cur, hops := "/", 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = path.Dir(cur)
			continue
		}
		next := path.Join(cur, c)
		if procPath(next) {
			return true
		}
		fi, err := os.Lstat(next)
		if err != nil {
			return false
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		t, err := os.Readlink(next)
		if hops++; err != nil || hops > maxPointerHops {
			return false
		}
		if path.IsAbs(t) {
			cur = "/"
		}
		rest = append(strings.Split(t, "/"), rest...)
	}
	return false
}

func procPath(p string) bool {
	return within(p, "/proc") || within(p, "/dev/fd") || strings.HasPrefix(p, "/dev/std")
}

// TrimPointer is how git reads a gitdir or commondir value: trailing CR
// and LF removed, then read as a C string (a NUL ends it: "gitdir:
// X\x00junk" leads git to X).
func TrimPointer(b []byte) string { return CString(strings.TrimRight(string(b), "\r\n")) }

// CString is v as C reads it: up to its first NUL.
func CString(v string) string {
	if i := strings.IndexByte(v, 0); i >= 0 {
		return v[:i]
	}
	return v
}

// within reports whether p is dir or lies below it (both clean,
// dir not "/").
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+"/")
}
