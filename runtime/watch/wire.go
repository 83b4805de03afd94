package watch

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// The requests and answers are fields each ended by a NUL byte (a path
// may hold any other byte): a request is "since" TOKEN G INVHASH, or
// "ack" TOKEN N; an answer "dirty" TOKEN N then KIND PATH pairs, "full"
// TOKEN N, "no" REASON, "ok", or "refused" REASON.

const (
	maxRequest = 4 << 10
	maxAnswer  = 256 << 20
	ioTimeout  = 5 * time.Second
)

func encode(fields ...string) []byte {
	var b []byte
	for _, f := range fields {
		b = append(b, f...)
		b = append(b, 0)
	}
	return b
}

func decode(b []byte) ([]string, error) {
	if len(b) == 0 || b[len(b)-1] != 0 {
		return nil, errors.New("malformed message")
	}
	parts := bytes.Split(b[:len(b)-1], []byte{0})
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = string(p)
	}
	return out, nil
}

// readAll reads fd until EOF, at most max bytes.
func readAll(fd int, max int) ([]byte, error) {
	var b []byte
	buf := make([]byte, 64<<10)
	for {
		n, err := unix.Read(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return b, nil
		}
		if b = append(b, buf[:n]...); len(b) > max {
			return nil, io.ErrShortBuffer
		}
	}
}

func writeAll(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := unix.Write(fd, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

func setTimeouts(fd int) {
	tv := unix.NsecToTimeval(int64(ioTimeout))
	_ = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	_ = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv)
}

func u64(s string) (uint64, bool) {
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}
