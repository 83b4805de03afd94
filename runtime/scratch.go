package runtime

import (
	"errors"
	"path"
	"strings"
	"time"

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
//
// A scratch directory that is there and the caller's, last modified
// more than scratchRefresh ago, gets its times set to now: a cleaner of
// old temporary directories (systemd-tmpfiles' age, an agent's 24-hour
// pruner) leaves the scratch of an environment still in use, as it
// would if a command had written there.
func RestoreScratch(inv *invocation.Invocation) {
	restoreScratch(inv, time.Now())
}

// scratchRefresh is how old a scratch directory's modification time
// may be before a command refreshes it: at most one utimensat an hour
// per environment, nothing on an ordinary command.
const scratchRefresh = time.Hour

func restoreScratch(inv *invocation.Invocation, now time.Time) {
	if inv.Scratch == "" || !path.IsAbs(inv.Scratch) {
		return
	}
	var st unix.Stat_t
	err := unix.Lstat(inv.Scratch, &st)
	if err == nil {
		if st.Mode&unix.S_IFMT == unix.S_IFDIR && int(st.Uid) == unix.Geteuid() && now.Sub(time.Unix(st.Mtim.Unix())) > scratchRefresh {
			// A symlink put in its place since the Lstat is not followed.
			_ = unix.UtimesNanoAt(unix.AT_FDCWD, inv.Scratch, nil, unix.AT_SYMLINK_NOFOLLOW)
		}
		return
	}
	if !errors.Is(err, unix.ENOENT) {
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
