package watch

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// localFS are the filesystems whose every change passes through this
// kernel, so that inotify reports it: on a network or FUSE filesystem
// another machine (which a command may reach over the network) or a
// user-space server changes files without an event here, and the
// watcher would answer "nothing changed". A directory on any other
// filesystem fails the watcher's start: every scan is a whole one.
var localFS = map[int64]string{
	unix.EXT4_SUPER_MAGIC:      "ext4",
	unix.XFS_SUPER_MAGIC:       "xfs",
	unix.BTRFS_SUPER_MAGIC:     "btrfs",
	unix.TMPFS_MAGIC:           "tmpfs",
	unix.F2FS_SUPER_MAGIC:      "f2fs",
	unix.OVERLAYFS_SUPER_MAGIC: "overlay",
	0x2fc12fc1:                 "zfs",
	0xca451a4e:                 "bcachefs",
}

// checkLocal fails for a directory (open as fd, path p) on a filesystem
// not in localFS.
func checkLocal(fd int, p string) error {
	var st unix.Statfs_t
	if err := unix.Fstatfs(fd, &st); err != nil {
		return fmt.Errorf("cannot tell the filesystem of %s: %w", p, err)
	}
	if _, ok := localFS[int64(st.Type)]; !ok {
		return fmt.Errorf("%s is on a filesystem (type %#x) whose changes inotify may not report", p, st.Type)
	}
	return nil
}
