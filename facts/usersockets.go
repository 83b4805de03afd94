package facts

import (
	"path"
	"sort"
	"strings"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// UnixSocketsPath is where the compile reads the host's bound Unix
// sockets (H8's user sockets), through FS.
const UnixSocketsPath = "/proc/net/unix"

// maxUnixSockets bounds the bytes of UnixSocketsPath read, and
// maxUserSockets the sockets hidden; past either, a warning.
const (
	maxUnixSockets = 4 << 20
	maxUserSockets = 256
)

// ParseUnixSockets returns the paths of the file-system sockets listed
// in /proc/net/unix (the last column, when it starts with "/"; abstract
// sockets, "@…", and unbound ones are left out), sorted, each once.
func ParseUnixSockets(data []byte) []string {
	seen := map[string]bool{}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 8 {
			continue
		}
		p := fields[len(fields)-1]
		if !strings.HasPrefix(p, "/") || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, path.Clean(p))
	}
	sort.Strings(out)
	return out
}

// userSockets hides the host's Unix sockets that the user owns and the
// sandbox would otherwise show (H8): a socket is a service acting with
// the user's authority for whoever can connect, and a read-only bind
// does not stop connect(). An ssh ControlMaster socket in ~/.cache runs
// commands on remote hosts without a key; an ssh-agent started with
// `-a /var/tmp/agent.sock` signs with every key; a tmux or screen server
// moved out of /tmp types into the user's terminals. Sockets under the
// sandbox's own /tmp, /dev, /proc and /run/user/<uid>, or inside a
// hidden path, are unreachable already. Only sockets bound when
// compiling are seen (a socket that goes away makes the invocation
// stale; one bound later is not seen until the next compile).
func (g *gatherer) userSockets(h *Host, f *Facts) (out []Hidden, notes []string) {
	data, err := g.fs.ReadFile(UnixSocketsPath, maxUnixSockets+1)
	if err != nil {
		return nil, nil // no /proc (a synthetic tree): nothing bound
	}
	if len(data) > maxUnixSockets {
		notes = append(notes, UnixSocketsPath+" is larger than 4 MiB: the user's own sockets are not looked for")
		return nil, notes
	}
	seen := map[string]bool{}
	for _, p := range ParseUnixSockets(data) {
		if alreadyUnreachable(p, f) || !g.examinable(p) || invocation.IsWatchSocketTemp(p) {
			continue // (a watcher's socket between its bind and its rename: bwpolicy's own, gone a moment later)
		}
		st := g.fs.Lstat(p)
		if st.Kind != invocation.KindSocket || st.UID != h.UID {
			continue
		}
		x := g.hidden(p, SourceUserSocket)
		if x.Kind != invocation.KindSocket || seen[x.Path] || alreadyUnreachable(x.Path, f) {
			continue
		}
		if len(out) == maxUserSockets {
			notes = append(notes, "more than 256 sockets of the user's own are bound: the rest stay reachable")
			break
		}
		seen[x.Path] = true
		out = append(out, x)
	}
	return out, notes
}

// examinable: p has no control character and every directory on its way
// can be examined (a socket of another program's odd tree is skipped,
// not turned into a path the compile depends on and cannot check).
func (g *gatherer) examinable(p string) bool {
	if strings.IndexFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
		return false
	}
	for d := path.Dir(p); d != "/"; d = path.Dir(d) {
		if st := g.fs.Lstat(d); st.Err != nil || st.Kind == invocation.KindDenied {
			return false
		}
	}
	return true
}
