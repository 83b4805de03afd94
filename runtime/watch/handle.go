package watch

import (
	"sort"
	"strconv"

	"golang.org/x/sys/unix"
)

// server answers the requests of one watcher.
type server struct {
	t       *tree
	token   string
	invHash string
	ns      string
	uid     int
	// ended, once set, is why the watcher exits after the answer.
	ended string
}

// handle answers the one request on connection c and closes it. It
// reports whether the watcher ends now.
func (s *server) handle(c int) bool {
	defer unix.Close(c)
	setTimeouts(c)
	why := CheckPeer(c, s.uid, s.ns)
	b, err := readAll(c, maxRequest)
	if why != "" {
		// Read (and not acted upon) first, so that the peer gets the
		// answer rather than a reset.
		_ = writeAll(c, encode("refused", why))
		return false
	}
	if err != nil {
		return false
	}
	req, err := decode(b)
	if err != nil {
		return false
	}
	// The request came after the command ended: every change it made
	// is queued; drain it before answering.
	s.t.drain()
	_ = writeAll(c, s.answer(req))
	return s.ended != ""
}

func (s *server) answer(req []string) []byte {
	g := s.t.gens
	switch {
	case len(req) == 4 && req[0] == "since":
		if req[3] != s.invHash {
			s.ended = "the invocation changed"
			return encode("no", s.ended)
		}
		if s.t.broken != "" {
			s.ended = s.t.broken
			return encode("no", s.ended)
		}
		since, ok := u64(req[2])
		if req[1] != s.token || !ok || !g.known(since) {
			n, _ := g.cut(g.gen)
			return encode("full", s.token, strconv.FormatUint(n, 10))
		}
		n, set := g.cut(since)
		dirs := make([]string, 0, len(set))
		for d := range set {
			dirs = append(dirs, d)
		}
		sort.Strings(dirs)
		out := encode("dirty", s.token, strconv.FormatUint(n, 10))
		for _, d := range dirs {
			out = append(out, encode(string(set[d]), d)...)
		}
		return out
	case len(req) == 3 && req[0] == "ack":
		n, ok := u64(req[2])
		if req[1] != s.token || !ok || !g.ack(n) {
			return encode("no", "unknown generation")
		}
		return encode("ok")
	}
	return encode("no", "malformed request")
}
