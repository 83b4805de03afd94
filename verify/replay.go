// Package verify is bwpolicy's independent checker (H6). It replays the
// bwrap arguments of a compiled invocation into the mount table they
// produce, with its own model of bwrap's semantics, and proves the
// sandbox's invariants against the host facts the invocation recorded:
// every existing hidden path masked, only the writable set writable, no
// protection covered by a later mount, the namespaces the profile names,
// a seccomp filter, every file descriptor declared.
//
// It shares no code with the compiler: it reads only the invocation
// (package runtime's types), so a mistake in the compiler's mount logic
// is not repeated here.
package verify

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Kind is what a mount puts at its destination.
type Kind string

// Mount kinds.
const (
	// Bind is a read-write bind mount of a host path (--bind).
	Bind Kind = "bind"
	// ROBind is a read-only bind mount of a host path (--ro-bind).
	ROBind Kind = "ro-bind"
	// Tmpfs is an empty tmpfs of the sandbox's own (--tmpfs).
	Tmpfs Kind = "tmpfs"
	// Dev is bwrap's minimal /dev (--dev).
	Dev Kind = "dev"
	// Proc is a private procfs (--proc).
	Proc Kind = "proc"
	// Symlink is a symbolic link bwrap creates (--symlink TARGET DEST),
	// in the sandbox's own file system: Source holds the target, which
	// the kernel resolves inside the sandbox, never on the host.
	Symlink Kind = "symlink"
	// Data is a read-only file holding what bwrap read from a file
	// descriptor (--ro-bind-data); bwpolicy gives it an empty stream.
	Data Kind = "data"
)

// Mount is one mount operation of the replayed arguments.
type Mount struct {
	// Dest is where the mount lands in the sandbox.
	Dest string
	// Source is the host path of a Bind or ROBind ("" for the others).
	// bwrap resolves a bind's source in the host's file system (its
	// "oldroot"), never through the sandbox's earlier mounts.
	Source string
	// FD is the file descriptor of a Data mount (-1 for the others).
	FD   int
	Kind Kind
	// Writable says whether the sandbox can write through this mount
	// (after any --remount-ro).
	Writable bool
	// Index is the position of the mount's option in the arguments.
	Index int
	// Option is the bwrap option that made the mount ("--tmpfs", ...).
	Option string
	// RemountRO is the index of the --remount-ro that made the mount
	// read-only, or -1.
	RemountRO int
	// CoveredBy is the index of the later mount at or above Dest that
	// made this one unreachable, or -1 while it is visible.
	CoveredBy int
	// Over is the mount that served Dest just before this one landed
	// (nil when nothing was mounted there): bwrap creates a missing mount
	// point in it.
	Over *Mount
	// Size is the size bound of a Tmpfs in bytes (--size just before
	// --tmpfs), 0 when it has none.
	Size uint64
}

// HostBacked reports whether the mount shows host files (a bind).
func (m *Mount) HostBacked() bool { return m.Kind == Bind || m.Kind == ROBind }

// Visible reports whether no later mount covers this one.
func (m *Mount) Visible() bool { return m.CoveredBy < 0 }

// Args renders the mount's arguments as they were given.
func (m *Mount) Args() string {
	switch m.Kind {
	case Bind, ROBind:
		return m.Option + " " + m.Source + " " + m.Dest
	case Data:
		return m.Option + " " + strconv.Itoa(m.FD) + " " + m.Dest
	case Symlink:
		return m.Option + " " + m.Source + " " + m.Dest
	case Tmpfs:
		if m.Size > 0 {
			return "--size " + strconv.FormatUint(m.Size, 10) + " " + m.Option + " " + m.Dest
		}
	}
	return m.Option + " " + m.Dest
}

// FDUse is an argument that hands bwrap a file descriptor.
type FDUse struct {
	Option string
	FD     int
	Index  int
}

// Flag is an option without a value (--unshare-all, --new-session, ...).
type Flag struct {
	Option string
	Index  int
}

// MountTable is the sandbox's file system as the arguments build it, and
// the other options they set.
type MountTable struct {
	// Args are the replayed arguments.
	Args []string
	// Mounts holds every mount in argument order, covered ones included.
	Mounts []*Mount
	// Flags are the value-less options, in order.
	Flags []Flag
	// FDs are the file descriptors the arguments use, in order.
	FDs []FDUse
	// Chdir is the --chdir directory ("" when absent); ChdirIndex its
	// position, or -1.
	Chdir      string
	ChdirIndex int
}

// optionArity is every option Replay understands, with its value count.
// Anything else is an error: an argument whose effect the checker cannot
// model cannot be verified.
var optionArity = map[string]int{
	"--unshare-all": 0, "--share-net": 0, "--unshare-user": 0, "--unshare-user-try": 0,
	"--unshare-ipc": 0, "--unshare-pid": 0, "--unshare-net": 0, "--unshare-uts": 0,
	"--unshare-cgroup": 0, "--unshare-cgroup-try": 0, "--disable-userns": 0,
	"--die-with-parent": 0, "--new-session": 0,

	"--ro-bind": 2, "--bind": 2, "--ro-bind-data": 2, "--symlink": 2,
	"--dev": 1, "--proc": 1, "--tmpfs": 1, "--remount-ro": 1, "--chdir": 1, "--size": 1,
	"--info-fd": 1, "--block-fd": 1, "--json-status-fd": 1, "--seccomp": 1,
}

// ReplayError is an argument list Replay cannot turn into a mount table.
type ReplayError struct {
	// Index is the position of the offending argument.
	Index  int
	Option string
	Msg    string
}

// Error names the argument's index, its option and what is wrong.
func (e *ReplayError) Error() string {
	if e.Option == "" {
		return fmt.Sprintf("args[%d]: %s", e.Index, e.Msg)
	}
	return fmt.Sprintf("args[%d] %s: %s", e.Index, e.Option, e.Msg)
}

// Replay applies the bwrap arguments in order, as bwrap does, and returns
// the mount table they produce. A later mount at or above an earlier
// one's destination covers it; --remount-ro makes the mount at exactly
// that path read-only (not the mounts below it) and, like bwrap, fails
// when the path is not a mount point.
func Replay(args []string) (*MountTable, error) {
	t := &MountTable{Args: args, ChdirIndex: -1}
	sizeAt := -1 // index of a --size waiting for its --tmpfs
	for i := 0; i < len(args); i++ {
		opt := args[i]
		n, ok := optionArity[opt]
		if !ok {
			if strings.HasPrefix(opt, "-") {
				return t, &ReplayError{i, opt, "option not understood by the verifier: an argument it cannot model cannot be verified"}
			}
			return t, &ReplayError{i, "", fmt.Sprintf("%q is not an option (a value without its option?)", opt)}
		}
		if i+n >= len(args) {
			return t, &ReplayError{i, opt, fmt.Sprintf("needs %d value(s), the arguments end", n)}
		}
		vals := args[i+1 : i+1+n]
		if sizeAt >= 0 && opt != "--tmpfs" {
			return t, &ReplayError{sizeAt, "--size", "not followed by --tmpfs (bwrap applies it to the next --tmpfs only)"}
		}
		if opt == "--size" {
			v, err := strconv.ParseUint(vals[0], 10, 64)
			if err != nil || v == 0 || strconv.FormatUint(v, 10) != vals[0] {
				return t, &ReplayError{i, opt, fmt.Sprintf("%q is not a positive byte count", vals[0])}
			}
			sizeAt, i = i, i+n
			continue
		}
		if err := t.apply(i, opt, vals); err != nil {
			return t, err
		}
		if sizeAt >= 0 {
			t.Mounts[len(t.Mounts)-1].Size, _ = strconv.ParseUint(args[sizeAt+1], 10, 64)
			sizeAt = -1
		}
		i += n
	}
	if sizeAt >= 0 {
		return t, &ReplayError{sizeAt, "--size", "not followed by --tmpfs (bwrap applies it to the next --tmpfs only)"}
	}
	return t, nil
}

func (t *MountTable) apply(i int, opt string, vals []string) error {
	bad := func(format string, a ...any) error { return &ReplayError{i, opt, fmt.Sprintf(format, a...)} }
	abs := func(p string) error {
		if !path.IsAbs(p) || path.Clean(p) != p {
			return bad("%q is not an absolute, clean path", p)
		}
		return nil
	}
	fd := func(s string) (int, error) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || strconv.Itoa(n) != s {
			return 0, bad("%q is not a file descriptor number", s)
		}
		return n, nil
	}
	switch opt {
	case "--ro-bind", "--bind":
		if err := abs(vals[0]); err != nil {
			return err
		}
		if err := abs(vals[1]); err != nil {
			return err
		}
		k := ROBind
		if opt == "--bind" {
			k = Bind
		}
		t.mount(&Mount{Dest: vals[1], Source: vals[0], FD: -1, Kind: k, Writable: k == Bind, Index: i, Option: opt})
	case "--ro-bind-data":
		n, err := fd(vals[0])
		if err != nil {
			return err
		}
		if err := abs(vals[1]); err != nil {
			return err
		}
		t.FDs = append(t.FDs, FDUse{opt, n, i})
		t.mount(&Mount{Dest: vals[1], FD: n, Kind: Data, Index: i, Option: opt})
	case "--symlink":
		if vals[0] == "" || strings.ContainsRune(vals[0], 0) {
			return bad("%q is not a symlink target", vals[0])
		}
		if err := abs(vals[1]); err != nil {
			return err
		}
		t.mount(&Mount{Dest: vals[1], Source: vals[0], FD: -1, Kind: Symlink, Index: i, Option: opt})
	case "--tmpfs", "--dev", "--proc":
		if err := abs(vals[0]); err != nil {
			return err
		}
		k := map[string]Kind{"--tmpfs": Tmpfs, "--dev": Dev, "--proc": Proc}[opt]
		// A fresh tmpfs (and bwrap's /dev, itself a tmpfs) is writable by
		// the sandbox; procfs is what the kernel makes it.
		t.mount(&Mount{Dest: vals[0], FD: -1, Kind: k, Writable: k != Proc, Index: i, Option: opt})
	case "--remount-ro":
		if err := abs(vals[0]); err != nil {
			return err
		}
		m := t.MountAt(vals[0])
		if m == nil {
			return bad("%s is not a mount point (bwrap fails: --remount-ro is not recursive and needs a mount point)", vals[0])
		}
		m.Writable = false
		if m.RemountRO < 0 {
			m.RemountRO = i
		}
	case "--chdir":
		t.Chdir, t.ChdirIndex = vals[0], i
	case "--info-fd", "--block-fd", "--json-status-fd", "--seccomp":
		n, err := fd(vals[0])
		if err != nil {
			return err
		}
		t.FDs = append(t.FDs, FDUse{opt, n, i})
	default:
		t.Flags = append(t.Flags, Flag{opt, i})
	}
	return nil
}

// mount adds m on top of the table: every visible mount at or below its
// destination becomes unreachable.
func (t *MountTable) mount(m *Mount) {
	m.RemountRO, m.CoveredBy = -1, -1
	m.Over, _ = t.Lookup(m.Dest)
	for _, o := range t.Mounts {
		if o.Visible() && within(o.Dest, m.Dest) {
			o.CoveredBy = m.Index
		}
	}
	t.Mounts = append(t.Mounts, m)
}

// Visible returns the reachable mounts, sorted by destination.
func (t *MountTable) Visible() []*Mount {
	var out []*Mount
	for _, m := range t.Mounts {
		if m.Visible() {
			out = append(out, m)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Dest < out[j].Dest })
	return out
}

// MountAt returns the visible mount whose destination is exactly p, or nil
// when p is not a mount point.
func (t *MountTable) MountAt(p string) *Mount {
	for _, m := range t.Mounts {
		if m.Visible() && m.Dest == p {
			return m
		}
	}
	return nil
}

// Lookup returns the mount that serves p in the sandbox — the deepest
// visible mount point at or above p — and whether the sandbox can write
// there. It returns nil when nothing is mounted at or above p.
func (t *MountTable) Lookup(p string) (*Mount, bool) {
	var best *Mount
	for _, m := range t.Mounts {
		if m.Visible() && within(p, m.Dest) && (best == nil || len(m.Dest) > len(best.Dest)) {
			best = m
		}
	}
	if best == nil {
		return nil, false
	}
	return best, best.Writable
}

// Parent returns the visible mount that m's destination lies strictly
// inside (the deepest one), or nil.
func (t *MountTable) Parent(m *Mount) *Mount {
	if m.Dest == "/" {
		return nil
	}
	p, _ := t.Lookup(path.Dir(m.Dest))
	return p
}

// HostPathAt returns the host path a host-backed mount shows at sandbox
// path p (which must lie within m.Dest).
func HostPathAt(m *Mount, p string) string {
	return join(m.Source, rel(p, m.Dest))
}

// has reports whether a value-less option was given, and where (its
// last occurrence).
func (t *MountTable) has(opt string) (int, bool) {
	at, ok := -1, false
	for _, f := range t.Flags {
		if f.Option == opt {
			at, ok = f.Index, true
		}
	}
	return at, ok
}

// within reports whether p is base or lies under it (both clean and
// absolute).
func within(p, base string) bool {
	if base == "/" {
		return strings.HasPrefix(p, "/")
	}
	// Without building base+"/": the replay calls this for every pair of
	// mounts.
	return len(p) >= len(base) && p[:len(base)] == base && (len(p) == len(base) || p[len(base)] == '/')
}

// rel returns p relative to base ("" when equal); p must lie within base.
func rel(p, base string) string {
	if p == base {
		return ""
	}
	if base == "/" {
		return strings.TrimPrefix(p, "/")
	}
	return strings.TrimPrefix(p, base+"/")
}

func join(base, r string) string {
	if r == "" {
		return base
	}
	return path.Join(base, r)
}
