package filekind

import (
	"encoding/binary"
	"slices"

	"golang.org/x/sys/unix"
)

// direntHeader is the size of struct linux_dirent64 before its name:
// d_ino (8), d_off (8), d_reclen (2), d_type (1).
const direntHeader = 19

// EachDirent lists the open directory fd with getdents64 into buf and
// calls fn with each entry's name (".", ".." included; the bytes are
// only valid during the call) and d_type. A malformed record is an
// error (unix.EIO): a partial listing must not pass for a whole one.
func EachDirent(fd int, buf []byte, fn func(name []byte, typ uint8)) error {
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n <= 0 {
			return nil
		}
		for off := 0; off < n; {
			if off+direntHeader > n {
				return unix.EIO
			}
			reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
			if reclen <= direntHeader || off+reclen > n {
				return unix.EIO
			}
			name := buf[off+direntHeader : off+reclen]
			if end := slices.Index(name, 0); end >= 0 {
				name = name[:end]
			}
			fn(name, buf[off+18])
			off += reclen
		}
	}
}
