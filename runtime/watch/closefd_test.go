package watch

import "golang.org/x/sys/unix"

// closeFD closes a tree's inotify descriptor in the tests.
func closeFD(fd int) { _ = unix.Close(fd) }
