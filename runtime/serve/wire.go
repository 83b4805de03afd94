package serve

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// MaxRequest bounds a request's JSON (the command, its environment).
const MaxRequest = 8 << 20

// Request is one command asked of the server: a 4-byte big-endian length
// and this object as JSON, the caller's stdin, stdout and stderr passed
// with SCM_RIGHTS on the first bytes. Args are bwrun's arguments as on
// its command line without the program name (per-run options,
// INVOCATION, "--", the command), INVOCATION the server's own;
// --status-fd and --status-file are refused (the status is the reply).
// Env is the command's environment ("NAME=VALUE" each).
type Request struct {
	Args []string `json:"args"`
	Env  []string `json:"env"`
}

// Kill, one byte the caller sends after its request, kills the sandbox
// (as the caller's disconnecting does); the scan still runs and the
// reply still comes.
const Kill = 'k'

// readRequest reads one request and its three descriptors from c
// (close-on-exec) within wait in all (a peer that trickles its request
// is cut off). It reads the request's bytes and no more: a Kill the
// caller sent right after it is left for the run's watch of c. The
// files are nil on error.
func readRequest(c int, wait time.Duration) (Request, []*os.File, error) {
	var req Request
	deadline := time.Now().Add(wait)
	if err := recvTimeout(c, deadline); err != nil {
		return req, nil, err
	}
	buf := make([]byte, 64<<10)
	oob := make([]byte, unix.CmsgSpace(3*4))
	// A receive bounded by SO_RCVTIMEO is not restarted after a signal
	// handler ran (signal(7)): any signal the process gets (a child's
	// SIGCHLD) would otherwise cut the request short.
	n, oobn, flags, _, err := unix.Recvmsg(c, buf, oob, unix.MSG_CMSG_CLOEXEC)
	for err == unix.EINTR {
		n, oobn, flags, _, err = unix.Recvmsg(c, buf, oob, unix.MSG_CMSG_CLOEXEC)
	}
	if err != nil {
		return req, nil, err
	}
	files, ferr := parseRights(oob[:oobn])
	switch {
	case ferr == nil && flags&unix.MSG_CTRUNC != 0:
		ferr = errors.New("more descriptors passed than the 3 expected (stdin, stdout, stderr)")
	case ferr == nil && len(files) != 3:
		ferr = fmt.Errorf("%d descriptors passed, 3 expected (stdin, stdout, stderr)", len(files))
	}
	if ferr != nil {
		closeAll(files)
		return req, nil, ferr
	}
	// A message that carries descriptors is received alone: buf[:n]
	// holds no byte sent after it. A copy: buf is read into again.
	data := append(make([]byte, 0, n), buf[:n]...)
	for {
		if len(data) >= 4 {
			size := binary.BigEndian.Uint32(data[:4])
			if size > MaxRequest {
				closeAll(files)
				return req, nil, errors.New("request too long")
			}
			if len(data) > 4+int(size) {
				closeAll(files)
				return req, nil, errors.New("bytes after the request")
			}
			if len(data) == 4+int(size) {
				break
			}
		}
		want := 4 - len(data)
		if len(data) >= 4 {
			want = 4 + int(binary.BigEndian.Uint32(data[:4])) - len(data)
		}
		if err := recvTimeout(c, deadline); err != nil {
			closeAll(files)
			return req, nil, err
		}
		m, err := unix.Read(c, buf[:min(want, len(buf))])
		if err == unix.EINTR {
			continue
		}
		if err != nil || m == 0 {
			closeAll(files)
			return req, nil, fmt.Errorf("request cut short: %v", err)
		}
		data = append(data, buf[:m]...)
	}
	if err := json.Unmarshal(data[4:], &req); err != nil {
		closeAll(files)
		return req, nil, fmt.Errorf("request does not parse: %v", err)
	}
	_ = unix.SetsockoptTimeval(c, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{})
	return req, files, nil
}

// recvTimeout bounds c's next receive by deadline (an error once it
// has passed).
func recvTimeout(c int, deadline time.Time) error {
	left := time.Until(deadline)
	if left <= 0 {
		return errors.New("no request in time")
	}
	tv := unix.NsecToTimeval(left.Nanoseconds())
	return unix.SetsockoptTimeval(c, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
}

// parseRights returns the descriptors of the SCM_RIGHTS messages in oob.
func parseRights(oob []byte) ([]*os.File, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, err
	}
	var files []*os.File
	for _, m := range msgs {
		fds, err := unix.ParseUnixRights(&m)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			files = append(files, os.NewFile(uintptr(fd), "passed"))
		}
	}
	return files, nil
}

func closeAll(files []*os.File) {
	for _, f := range files {
		if f != nil {
			f.Close()
		}
	}
}
