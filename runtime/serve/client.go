package serve

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"

	"github.com/bwpolicy/bwpolicy/runtime/watch"

	"golang.org/x/sys/unix"
)

// Conn is one request's connection to a server, from Go (the tests and
// their helpers; the Hermes plugin speaks the protocol itself, in
// Python, so that a command costs no process start).
type Conn struct{ fd int }

// Dial connects to the server's socket and checks the server as it
// checks its peers (watch.Connect: the caller's uid and pid namespace).
func Dial(socket string) (*Conn, error) {
	fd, err := watch.Connect(socket, 0)
	if err != nil {
		return nil, err
	}
	return &Conn{fd: fd}, nil
}

// Send sends req with the command's three streams.
func (c *Conn) Send(req Request, stdin, stdout, stderr *os.File) error {
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	msg := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
	msg = append(msg, body...)
	rights := unix.UnixRights(int(stdin.Fd()), int(stdout.Fd()), int(stderr.Fd()))
	n, err := unix.SendmsgN(c.fd, msg, rights, nil, 0)
	if err != nil {
		return err
	}
	for n < len(msg) {
		m, err := unix.Write(c.fd, msg[n:])
		if err != nil {
			return err
		}
		n += m
	}
	return nil
}

// Kill asks the server to kill the command's sandbox (the scan still
// runs; the reply still comes).
func (c *Conn) Kill() error {
	_, err := unix.Write(c.fd, []byte{Kill})
	return err
}

// Reply reads the server's reply to its end (empty: none came, the
// server died or refused the peer).
func (c *Conn) Reply() ([]byte, error) {
	var out []byte
	buf := make([]byte, 4096)
	for {
		n, err := unix.Read(c.fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return out, err
		}
		if n == 0 {
			return out, nil
		}
		out = append(out, buf[:n]...)
		if len(out) > MaxRequest {
			return out, errors.New("reply too long")
		}
	}
}

// Close closes the connection (a command still running is killed, and
// scanned).
func (c *Conn) Close() error { return unix.Close(c.fd) }
