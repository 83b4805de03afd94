package invocation

import (
	"path"
	"strconv"
	"strings"
)

// WatchSocketTempInfix marks the name under which an environment's
// watcher (runtime/watch) binds its socket before renaming it onto its
// place beside the invocation: the kernel keeps the bound name in
// /proc/net/unix, and for the moment between bind and rename a socket is
// there. It is bwpolicy's own, answers no peer outside the watcher's pid
// namespace, and is gone a moment later, so the compile's look for the
// user's sockets (H8) skips it rather than record it as a precondition
// that the next run finds absent.
const WatchSocketTempInfix = ".watch.sock.new"

// WatchSocketTemp is the temporary name of the watcher socket sock
// (INVOCATION.watch.sock), bound by the process pid.
func WatchSocketTemp(sock string, pid int) string {
	return sock + ".new" + strconv.Itoa(pid)
}

// IsWatchSocketTemp reports whether p has the form WatchSocketTemp
// gives: NAME.watch.sock.new followed by decimal digits.
func IsWatchSocketTemp(p string) bool {
	base := path.Base(p)
	i := strings.LastIndex(base, WatchSocketTempInfix)
	if i <= 0 {
		return false
	}
	digits := base[i+len(WatchSocketTempInfix):]
	if digits == "" {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
