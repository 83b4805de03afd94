package filekind

import (
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"golang.org/x/sys/unix"
)

// Of is the invocation Kind constant of a file of mode m (a stat's
// st_mode): KindOther for anything but a symlink, a directory, a
// regular file or a socket.
func Of(m uint32) string {
	switch m & unix.S_IFMT {
	case unix.S_IFLNK:
		return invocation.KindSymlink
	case unix.S_IFDIR:
		return invocation.KindDir
	case unix.S_IFREG:
		return invocation.KindFile
	case unix.S_IFSOCK:
		return invocation.KindSocket
	}
	return invocation.KindOther
}

// OfDirent is the invocation Kind constant of a d_type (getdents), ""
// where lstat must tell (a symbolic link's target is needed; DT_UNKNOWN
// says nothing).
func OfDirent(typ byte) string {
	switch typ {
	case unix.DT_REG:
		return invocation.KindFile
	case unix.DT_DIR:
		return invocation.KindDir
	case unix.DT_SOCK:
		return invocation.KindSocket
	case unix.DT_FIFO, unix.DT_CHR, unix.DT_BLK:
		return invocation.KindOther
	default:
		return ""
	}
}
