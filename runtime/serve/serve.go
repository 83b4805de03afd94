package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	bwruntime "github.com/bwpolicy/bwpolicy/runtime"
	"github.com/bwpolicy/bwpolicy/runtime/watch"
	"golang.org/x/sys/unix"
)

// Config is one server's environment.
type Config struct {
	// InvPath is the invocation served. The server listens at
	// SocketOf(InvPath) and nowhere else: beside the invocation, in a
	// 0700 directory the sandbox never sees (a caller-chosen path could
	// be one a sandboxed command reaches).
	InvPath string
	// Parent, when set, is the read end of a pipe only the server's
	// parent holds the write end of: its end-of-file ends the server.
	Parent *os.File
	// Ready, when set, receives "ready\n" once the socket listens, or
	// "fail REASON\n", and is closed.
	Ready *os.File
	// Log receives the server's own lines (refused peers, why it ended).
	Log io.Writer
}

// Poll is how often the server looks at the invocation on disk while no
// command runs.
const Poll = time.Second

// requestWait bounds how long a connected peer may take to send its
// request.
const requestWait = 10 * time.Second

// ErrChanged ends a server whose invocation changed on disk.
var ErrChanged = errors.New("the invocation changed on disk: the server holds a stale one")

// ErrEnding is the message of the status a request gets from a server
// that is ending (a signal, its parent gone, its invocation changed):
// the command was not run.
var ErrEnding = errors.New("the environment's runtime is ending: the command was not run")

type server struct {
	cfg   Config
	data  []byte
	id    fileID
	uid   int
	ns    string
	never chan os.Signal // the runs' Stdio.Signals: the server's own handles signals
	mu    sync.Mutex
	stop  context.CancelFunc // the running command's, if any
	ended atomic.Bool        // a signal asked the server to end
}

// fileID is what tells that the invocation file changed.
type fileID struct {
	dev, ino, size uint64
	mtime, ctime   unix.Timespec
}

func statID(p string) (fileID, error) {
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		return fileID{}, err
	}
	return fileID{uint64(st.Dev), st.Ino, uint64(st.Size), st.Mtim, st.Ctim}, nil
}

// Serve runs the server until its parent goes, a signal, or the
// invocation changes; it returns why it ended (nil: the parent went or a
// signal).
func Serve(cfg Config) error {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	s, ln, unlock, err := start(cfg)
	if cfg.Ready != nil {
		if err != nil {
			fmt.Fprintf(cfg.Ready, "fail %s\n", err)
		} else {
			fmt.Fprintf(cfg.Ready, "ready\n")
		}
		cfg.Ready.Close()
	}
	if err != nil {
		return err
	}
	defer unlock()
	defer unix.Close(ln)
	err = s.loop(ln)
	s.ended.Store(true)
	// No new connection from here on; those already queued are
	// answered, not dropped.
	watch.RemoveSocket(SocketOf(cfg.InvPath))
	s.refusePending(ln)
	return err
}

// refusePending answers each connection still queued on ln when the
// server ends (s.ended is set): its request is read and answered
// setup-failed (ErrEnding), its command never run, so that its caller
// gets a status rather than a closed connection. It stops once none is
// queued or after requestWait.
func (s *server) refusePending(ln int) {
	deadline := time.Now().Add(requestWait)
	for time.Now().Before(deadline) {
		fds := []unix.PollFd{{Fd: int32(ln), Events: unix.POLLIN}}
		if n, err := unix.Poll(fds, 0); err != nil || n == 0 || fds[0].Revents&unix.POLLIN == 0 {
			return
		}
		c, _, err := unix.Accept4(ln, unix.SOCK_CLOEXEC)
		if err != nil {
			return
		}
		_ = s.handle(c)
	}
}

// start loads the invocation as bwrun does, takes the environment's
// lock and listens.
func start(cfg Config) (*server, int, func(), error) {
	_, data, err := bwruntime.LoadTrustedData(cfg.InvPath)
	if err != nil {
		return nil, -1, nil, err
	}
	id, err := statID(cfg.InvPath)
	if err != nil {
		return nil, -1, nil, err
	}
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return nil, -1, nil, err
	}
	sock := SocketOf(cfg.InvPath)
	dir := filepath.Dir(sock)
	if err := privateDir(dir); err != nil {
		return nil, -1, nil, err
	}
	lk, err := lock(dir)
	if err != nil {
		return nil, -1, nil, err
	}
	ln, err := watch.Listen(sock)
	if err != nil {
		unix.Close(lk)
		return nil, -1, nil, fmt.Errorf("cannot listen on %s: %w", sock, err)
	}
	s := &server{cfg: cfg, data: data, id: id, uid: os.Getuid(), ns: ns, never: make(chan os.Signal)}
	return s, ln, func() { unix.Close(lk) }, nil
}

func (s *server) loop(ln int) error {
	sigc := make(chan os.Signal, 4)
	signal.Notify(sigc, bwruntime.ForwardedSignals...)
	defer signal.Stop(sigc)
	go func() {
		for range sigc {
			s.ended.Store(true)
			s.mu.Lock()
			if s.stop != nil {
				s.stop()
			}
			s.mu.Unlock()
		}
	}()
	fds := []unix.PollFd{{Fd: int32(ln), Events: unix.POLLIN}}
	if s.cfg.Parent != nil {
		fds = append(fds, unix.PollFd{Fd: int32(s.cfg.Parent.Fd()), Events: unix.POLLIN})
	}
	last := time.Now()
	for !s.ended.Load() {
		_, err := unix.Poll(fds, int((Poll / 4).Milliseconds()))
		if err != nil && err != unix.EINTR {
			return err
		}
		if len(fds) > 1 && fds[1].Revents != 0 {
			return nil // the parent is gone
		}
		if fds[0].Revents&unix.POLLIN != 0 {
			if c, _, err := unix.Accept4(ln, unix.SOCK_CLOEXEC); err == nil {
				if err := s.handle(c); err != nil {
					return err
				}
			}
		}
		if time.Since(last) >= Poll {
			last = time.Now()
			if id, err := statID(s.cfg.InvPath); err != nil || id != s.id {
				return ErrChanged
			}
		}
	}
	return nil
}

// sameData reports whether the invocation loaded now is the one held.
func (s *server) sameData(data []byte) bool { return bytes.Equal(data, s.data) }
