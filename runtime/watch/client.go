package watch

import (
	"errors"
	"fmt"
	"strconv"

	"golang.org/x/sys/unix"
)

// Answer is the watcher's answer to Since.
type Answer struct {
	// Token is the watcher's; Gen the generation the answer closed: a
	// finished scan acknowledges it (Ack) and records both.
	Token string
	Gen   uint64
	// Full: the watcher cannot say what changed since the generation
	// asked about (another watcher's, or one acknowledged since): the
	// whole tree is scanned.
	Full bool
	// Dirty are the directories that changed since the generation asked
	// about (when not Full).
	Dirty Set
}

// ErrNoWatcher is Since's error when nothing listens on the socket.
var ErrNoWatcher = errors.New("no watcher")

// NoAnswer is Since's error when the watcher cannot answer (it has
// stopped watching something: Reason) and exits.
type NoAnswer struct{ Reason string }

// Error says why the watcher cannot answer.
func (e *NoAnswer) Error() string { return "the watcher cannot answer: " + e.Reason }

// Since asks the watcher at socket which directories changed since
// generation gen of its token (token "" or another watcher's: a Full
// answer), for the invocation of digest invHash.
func Since(socket, token string, gen uint64, invHash string) (*Answer, error) {
	f, err := call(socket, encode("since", token, strconv.FormatUint(gen, 10), invHash))
	if err != nil {
		return nil, err
	}
	switch {
	case len(f) >= 3 && (f[0] == "dirty" || f[0] == "full"):
		n, ok := u64(f[2])
		if !ok || len(f)%2 != 1 || f[0] == "full" && len(f) != 3 {
			return nil, errors.New("malformed answer from the watcher")
		}
		a := &Answer{Token: f[1], Gen: n, Full: f[0] == "full", Dirty: Set{}}
		for i := 3; i+1 < len(f); i += 2 {
			if len(f[i]) != 1 || (Kind(f[i][0]) != Self && Kind(f[i][0]) != Tree) || f[i+1] == "" || f[i+1][0] != '/' {
				return nil, errors.New("malformed answer from the watcher")
			}
			a.Dirty.Mark(f[i+1], Kind(f[i][0]))
		}
		return a, nil
	case len(f) == 2 && f[0] == "no":
		return nil, &NoAnswer{Reason: f[1]}
	}
	return nil, answerErr(f)
}

// Ack tells the watcher at socket that a scan of generation gen of its
// token has finished and been recorded: its dirty sets up to gen go.
func Ack(socket, token string, gen uint64) error {
	f, err := call(socket, encode("ack", token, strconv.FormatUint(gen, 10)))
	if err != nil {
		return err
	}
	if len(f) == 1 && f[0] == "ok" {
		return nil
	}
	return answerErr(f)
}

func answerErr(f []string) error {
	if len(f) == 2 && (f[0] == "no" || f[0] == "refused") {
		return fmt.Errorf("the watcher: %s: %s", f[0], f[1])
	}
	return errors.New("malformed answer from the watcher")
}

// call sends one request to the watcher at socket and returns its
// answer's fields.
func call(socket string, req []byte) ([]string, error) {
	fd, err := Connect(socket, ioTimeout)
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ECONNREFUSED) {
		return nil, ErrNoWatcher
	}
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	if err := writeAll(fd, req); err != nil {
		return nil, err
	}
	_ = unix.Shutdown(fd, unix.SHUT_WR)
	b, err := readAll(fd, maxAnswer)
	if err != nil {
		return nil, err
	}
	return decode(b)
}
