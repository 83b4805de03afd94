package serve

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"

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
// (close-on-exec). The files are nil on error.
func readRequest(c int) (Request, []*os.File, error) {
	var req Request
	buf := make([]byte, 64<<10)
	oob := make([]byte, unix.CmsgSpace(3*4))
	n, oobn, _, _, err := unix.Recvmsg(c, buf, oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil {
		return req, nil, err
	}
	files, ferr := parseRights(oob[:oobn])
	if ferr != nil || len(files) != 3 {
		closeAll(files)
		if ferr == nil {
			ferr = fmt.Errorf("%d descriptors passed, 3 expected (stdin, stdout, stderr)", len(files))
		}
		return req, nil, ferr
	}
	data := buf[:n]
	for len(data) < 4 || len(data) < 4+int(binary.BigEndian.Uint32(data[:4])) {
		if len(data) >= 4 && binary.BigEndian.Uint32(data[:4]) > MaxRequest {
			closeAll(files)
			return req, nil, errors.New("request too long")
		}
		m, err := unix.Read(c, buf)
		if err != nil || m == 0 {
			closeAll(files)
			return req, nil, fmt.Errorf("request cut short: %v", err)
		}
		data = append(data, buf[:m]...)
	}
	size := int(binary.BigEndian.Uint32(data[:4]))
	if len(data) != 4+size {
		closeAll(files)
		return req, nil, errors.New("bytes after the request")
	}
	if err := json.Unmarshal(data[4:], &req); err != nil {
		closeAll(files)
		return req, nil, fmt.Errorf("request does not parse: %v", err)
	}
	return req, files, nil
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
