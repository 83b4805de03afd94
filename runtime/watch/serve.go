package watch

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Config is one watcher's environment.
type Config struct {
	// Roots are the writable directories the scan walks.
	Roots []string
	// Enter reports whether the scan walks into directory p (below a
	// root): what it does not enter is not watched.
	Enter func(p string) bool
	// Socket is where the watcher listens (Paths.Socket); Lock a file
	// it holds locked while it lives (Paths.Lock).
	Socket, Lock string
	// InvHash is the digest of the invocation watched: a request for
	// another one is answered "no", and the watcher exits.
	InvHash string
	// Alive is asked every Poll: false (the invocation or its ledger
	// went away, or changed) ends the watcher.
	Alive func() bool
	// Idle ends the watcher after so long without a request.
	Idle time.Duration
	// Ready, when set, receives one line once every watch is in place
	// ("ready TOKEN") or the watcher cannot start ("fail REASON"), and
	// is closed.
	Ready *os.File
}

// Poll is how often the watcher asks Config.Alive.
const Poll = 2 * time.Second

// Serve runs the watcher until the environment goes away, it has been
// idle for cfg.Idle, or it can no longer answer (it then answers "no"
// to the next request and exits). It returns why it ended.
func Serve(cfg Config) error {
	err := serve(cfg)
	if err != nil && cfg.Ready != nil {
		fmt.Fprintf(cfg.Ready, "fail %s\n", err)
		cfg.Ready.Close()
	}
	return err
}

func serve(cfg Config) error {
	// A watcher that is ending may still hold the lock a moment.
	lock, err := LockFile(cfg.Lock, 3*time.Second)
	if errors.Is(err, ErrLocked) {
		return fmt.Errorf("another watcher holds %s", cfg.Lock)
	}
	if err != nil {
		return fmt.Errorf("cannot open the watcher's lock %s: %w", cfg.Lock, err)
	}
	defer unix.Close(lock)
	t, err := newTree(cfg.Enter)
	if err != nil {
		return err
	}
	defer unix.Close(t.fd)
	for _, r := range cfg.Roots {
		if err := t.addRoot(r); err != nil {
			return err
		}
	}
	ln, err := Listen(cfg.Socket)
	if err != nil {
		return err
	}
	defer unix.Close(ln)
	token := make([]byte, 16)
	if _, err := rand.Read(token); err != nil {
		return err
	}
	tok := hex.EncodeToString(token)
	if cfg.Ready != nil {
		fmt.Fprintf(cfg.Ready, "ready %s\n", tok)
		cfg.Ready.Close()
		cfg.Ready = nil
	}
	nsSelf, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return err
	}
	srv := &server{t: t, token: tok, invHash: cfg.InvHash, ns: nsSelf, uid: os.Getuid()}
	last, lastPoll := time.Now(), time.Now()
	fds := []unix.PollFd{{Fd: int32(t.fd), Events: unix.POLLIN}, {Fd: int32(ln), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(fds, int(Poll.Milliseconds()))
		if err != nil && err != unix.EINTR {
			return err
		}
		if fds[0].Revents != 0 {
			t.drain()
		}
		if fds[1].Revents != 0 {
			if c, _, err := unix.Accept4(ln, unix.SOCK_CLOEXEC); err == nil {
				last = time.Now()
				if srv.handle(c) {
					return errors.New(srv.ended)
				}
			}
		}
		if time.Since(lastPoll) >= Poll {
			lastPoll = time.Now()
			if !cfg.Alive() {
				return errors.New("the environment went away")
			}
			if time.Since(last) > cfg.Idle {
				return errors.New("idle")
			}
		}
	}
}
