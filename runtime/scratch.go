package runtime

import (
	"errors"
	"path"
	"strings"

	"github.com/bwpolicy/bwpolicy/hazard/privatedir"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"golang.org/x/sys/unix"
)

// RestoreScratch re-creates the invocation's private scratch directory
// (Invocation.Scratch) when something pruned it since the compile: only
// the last component is created, below a parent reached from / without
// following any symlink (the compile recorded the resolved path). When
// the parent is missing or changed, nothing is done and the
// preconditions report the invocation stale.
func RestoreScratch(inv *invocation.Invocation) {
	if inv.Scratch == "" || !path.IsAbs(inv.Scratch) {
		return
	}
	var st unix.Stat_t
	if err := unix.Lstat(inv.Scratch, &st); !errors.Is(err, unix.ENOENT) {
		return
	}
	fd, err := unix.Open("/", unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	names := strings.Split(strings.TrimPrefix(path.Clean(inv.Scratch), "/"), "/")
	for i, n := range names {
		next, err := privatedir.OpenNoFollow(fd, n, i == len(names)-1)
		unix.Close(fd)
		if err != nil {
			return
		}
		fd = next
	}
	unix.Close(fd)
}
