package runtime

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// This file re-checks, before anything runs, the argument invariants that
// make an invocation a sandbox. It is a small subset of `bwpolicy
// verify`, written again here (the runtime never imports the compiler or
// the verifier): a hand-edited or corrupted invocation that would run a
// command with the host's namespaces, a writable root, an extra writable
// host path or a hidden path in sight is refused with exit 125.

// ArgsError lists the sandbox invariants an invocation's arguments break.
type ArgsError struct {
	// Problems holds one sentence per broken invariant.
	Problems []string
}

// Error names every problem and the fix.
func (e *ArgsError) Error() string {
	return "the invocation's bwrap arguments do not describe a sandbox: " + strings.Join(e.Problems, "; ") +
		"; " + recompileHint
}

// argOp is one bwrap option with its values, at its index in the
// arguments.
type argOp struct {
	i    int
	opt  string
	vals []string
}

// Mount kinds as the check sees them.
const (
	mountRO     = iota // a read-only bind of a host path
	mountRW            // a read-write bind of a host path
	mountMask          // an empty tmpfs or an empty file (hides what is below)
	mountDev           // --dev
	mountProc          // --proc
	mountOther         // anything else that lands on a path (mqueue, overlays)
	mountExpose        // a file's content or descriptor: `bwrun --expose`
)

// mountOps maps each option that mounts something at its last value to
// its kind.
var mountOps = map[string]int{
	"--ro-bind": mountRO, "--ro-bind-try": mountRO,
	"--bind": mountRW, "--bind-try": mountRW, "--dev-bind": mountRW, "--dev-bind-try": mountRW, "--bind-fd": mountRW,
	"--ro-bind-fd": mountExpose,
	"--tmpfs":      mountMask, "--ro-bind-data": mountMask, "--bind-data": mountMask, "--file": mountMask,
	"--dev": mountDev, "--proc": mountProc,
	"--mqueue": mountOther, "--tmp-overlay": mountOther, "--ro-overlay": mountOther, "--overlay": mountOther,
}

// pathOps are the options whose every value (after an fd, for the data
// options) is a path, besides mountOps.
var pathOps = map[string]bool{"--remount-ro": true, "--dir": true, "--chdir": true, "--chmod": true, "--overlay-src": true}

// mount is one mountOps entry.
type mount struct {
	i         int
	kind      int
	src, dest string
}

// argCheck is one CheckArgs run.
type argCheck struct {
	inv      *invocation.Invocation
	mounts   []mount
	last     map[string]int // dest -> index in mounts of the last mount there
	flags    map[string]bool
	problems []string
}

// newArgCheck returns an argCheck of inv, its tables sized for inv's
// arguments: a home directory rebuilt by the allowlist layout (H10) has
// hundreds of mounts, and tables grown one insertion at a time would
// touch about twice the memory, paid in page faults by a fresh process.
func newArgCheck(inv *invocation.Invocation) *argCheck {
	n := len(inv.Bwrap.Args) / 3 // mounts take two or three arguments each
	return &argCheck{inv: inv, mounts: make([]mount, 0, n), last: make(map[string]int, n), flags: map[string]bool{}}
}

func (c *argCheck) fail(format string, a ...any) {
	if len(c.problems) < 20 {
		c.problems = append(c.problems, fmt.Sprintf(format, a...))
	}
}

// CheckArgs re-checks that inv's arguments make a sandbox: every
// namespace unshared (the user namespace with --unshare-user; the network
// may be shared only under profile "network"), --die-with-parent and
// --new-session, the host root read-only at /, a fresh /dev and /proc and
// a tmpfs /tmp, no read-write bind outside the recorded writable set
// (besides pins: a path re-bound at the same place inside a writable
// bind), each recorded hidden path masked by the last mount at or above
// it, a seccomp program installed, no capability added. Paths must be
// absolute and clean. Validate must have accepted inv.
func CheckArgs(inv *invocation.Invocation) error {
	c := newArgCheck(inv)
	c.parse()
	c.namespaces()
	c.filesystem()
	c.pid1Memory()
	c.exposures()
	c.writable()
	c.hidden()
	c.homeLayout()
	if !c.flags["--seccomp"] && !c.flags["--add-seccomp-fd"] {
		c.fail("no --seccomp: the seccomp deny-list (H2) would not be installed")
	}
	if c.flags["--cap-add"] {
		c.fail("--cap-add gives the command capabilities inside the sandbox")
	}
	if len(c.problems) > 0 {
		return &ArgsError{Problems: c.problems}
	}
	return nil
}

// CheckTrust runs the checks that do not depend on the host state the
// invocation was compiled under: the arguments (CheckArgs) and the bwrap
// binary (CheckBwrap). Run calls it before anything else; Validate must
// have accepted inv.
func CheckTrust(inv *invocation.Invocation) error {
	if err := CheckArgs(inv); err != nil {
		return err
	}
	return CheckBwrap(inv)
}

// parse splits the arguments into options and records the mounts.
func (c *argCheck) parse() {
	args := c.inv.Bwrap.Args
	for i := 0; i < len(args); i++ {
		n, ok := invocation.BwrapArity(args[i])
		if !ok || i+n >= len(args) {
			c.fail("args[%d]: %q is not a bwrap option with its values", i, args[i])
			return
		}
		op := argOp{i: i, opt: args[i], vals: args[i+1 : i+1+n]}
		i += n
		c.flags[op.opt] = true
		kind, isMount := mountOps[op.opt]
		if !isMount {
			if pathOps[op.opt] {
				p := op.vals[len(op.vals)-1]
				if !invocation.IsCleanAbs(p) {
					c.fail("args[%d]: %s %q is not an absolute, clean path", op.i, op.opt, p)
				}
			}
			continue
		}
		if kind == mountMask && op.opt != "--tmpfs" && !c.emptyFD(op.vals[0]) {
			kind = mountExpose // data that is not the compiled empty file
		}
		m := mount{i: op.i, kind: kind, dest: op.vals[len(op.vals)-1]}
		if kind == mountRO || kind == mountRW {
			m.src = op.vals[0]
			if !invocation.IsCleanAbs(m.src) {
				c.fail("args[%d]: %s source %q is not an absolute, clean path", op.i, op.opt, m.src)
			}
		}
		if op.opt == "--overlay" {
			c.fail("args[%d]: --overlay writes to a host directory outside the writable set", op.i)
		}
		if !invocation.IsCleanAbs(m.dest) {
			c.fail("args[%d]: %s destination %q is not an absolute, clean path", op.i, op.opt, m.dest)
		}
		c.last[m.dest] = len(c.mounts)
		c.mounts = append(c.mounts, m)
	}
}

func (c *argCheck) namespaces() {
	// bwrap reads the options in order: --share-net after --unshare-all
	// shares the network again.
	var user, ipc, pid, net, uts, cgroup bool
	for i := 0; i < len(c.inv.Bwrap.Args); i++ {
		switch c.inv.Bwrap.Args[i] {
		case "--unshare-all":
			ipc, pid, net, uts, cgroup = true, true, true, true, true
		case "--share-net":
			net = false
		case "--unshare-user":
			user = true
		case "--unshare-ipc":
			ipc = true
		case "--unshare-pid":
			pid = true
		case "--unshare-net":
			net = true
		case "--unshare-uts":
			uts = true
		case "--unshare-cgroup", "--unshare-cgroup-try":
			cgroup = true
		default:
			i += arity(c.inv.Bwrap.Args[i])
		}
	}
	for _, ns := range []struct {
		name string
		on   bool
	}{{"user", user}, {"ipc", ipc}, {"pid", pid}, {"uts", uts}, {"cgroup", cgroup}} {
		if !ns.on {
			if ns.name == "user" {
				c.fail("no --unshare-user: the user namespace is not unshared for certain (--unshare-all only tries)")
			} else {
				c.fail("the %s namespace is shared with the host (no --unshare-all or --unshare-%s)", ns.name, ns.name)
			}
		}
	}
	if !net && c.inv.Profile != "network" {
		c.fail("the host network is shared, but profile %q has none (only profile network shares it)", c.inv.Profile)
	}
	for _, opt := range []string{"--die-with-parent", "--new-session"} {
		if !c.flags[opt] {
			c.fail("no %s", opt)
		}
	}
}

// cover returns the mount that serves path p (the last one at p or above
// it), or nil.
func (c *argCheck) cover(p string) *mount {
	best := -1
	for q := p; ; q = filepath.Dir(q) {
		if k, ok := c.last[q]; ok && k > best {
			best = k
		}
		if q == "/" || q == "." {
			break
		}
	}
	if best < 0 {
		return nil
	}
	return &c.mounts[best]
}

func (c *argCheck) filesystem() {
	if m := c.cover("/"); m == nil || m.kind != mountRO || m.src != "/" || m.dest != "/" || c.inv.Bwrap.Args[m.i] != "--ro-bind" {
		c.fail("the root is not the host root read-only (the last mount at / must be --ro-bind / /)")
	}
	for _, want := range []struct {
		p    string
		kind int
		opt  string
	}{{"/dev", mountDev, "--dev"}, {"/proc", mountProc, "--proc"}, {"/tmp", mountMask, "--tmpfs"}} {
		if m := c.cover(want.p); m == nil || m.dest != want.p || m.kind != want.kind || (want.opt == "--tmpfs" && c.inv.Bwrap.Args[m.i] != "--tmpfs") {
			c.fail("%s is not a fresh %s (%s %s must be the last mount there)", want.p, strings.TrimPrefix(want.opt, "--"), want.opt, want.p)
		}
	}
}

// emptyFD reports whether the descriptor number fd is one the
// invocation lists as an empty file (the compiled masks' content).
func (c *argCheck) emptyFD(fd string) bool {
	for _, f := range c.inv.FDs {
		if strconv.Itoa(f.Num) == fd {
			return f.Kind == invocation.FDEmpty
		}
	}
	return false
}

// exposures checks every bind of content the compiler did not write
// (`bwrun --expose`: --ro-bind-fd, or --ro-bind-data of a descriptor
// that is not the invocation's empty file): read-only, at a path
// strictly below one of the invocation's expose roots, and not inside a
// hidden path below that root (a hidden path at or above the root is
// what the root is carved out of).
func (c *argCheck) exposures() {
	for _, m := range c.mounts {
		if m.kind != mountExpose {
			continue
		}
		opt := c.inv.Bwrap.Args[m.i]
		if opt != "--ro-bind-fd" && opt != "--ro-bind-data" {
			c.fail("args[%d]: %s %s is a writable copy of content the invocation does not list", m.i, opt, m.dest)
			continue
		}
		root := ""
		if c.inv.Expose != nil {
			for _, r := range c.inv.Expose.Roots {
				if invocation.Within(m.dest, r) && m.dest != r {
					root = r
				}
			}
		}
		if root == "" {
			c.fail("args[%d]: %s shows content at %s, which is below no expose root of the invocation", m.i, opt, m.dest)
			continue
		}
		for _, h := range c.inv.Hidden {
			if invocation.Within(m.dest, h) && !invocation.Within(root, h) {
				c.fail("args[%d]: %s shows content at %s, inside hidden path %s", m.i, opt, m.dest, h)
			}
		}
	}
}

// pid1Memory checks that both names of the memory of the sandbox's pid
// 1 (bwrap's init, which runs as the command's user) are served by
// `--ro-bind /dev/null` at exactly that path, mounted after the fresh
// /proc (else it would lie below it): without Yama a command could write
// its code into the init through them and take the sandbox over (S11).
func (c *argCheck) pid1Memory() {
	if !requirePid1Mask {
		return
	}
	for _, p := range []string{"/proc/1/mem", "/proc/1/task/1/mem"} {
		if m := c.cover(p); m == nil || m.dest != p || m.src != "/dev/null" || c.inv.Bwrap.Args[m.i] != "--ro-bind" {
			c.fail("the memory of the sandbox's pid 1 is reachable at %s (--ro-bind /dev/null %s after --proc /proc must be the last mount there): a command could take the sandbox over (S11)", p, p)
		}
	}
}

// writable checks that every read-write bind lands on a path of the
// recorded writable set, or re-binds at the same place a host path that
// an earlier read-write bind already shows writable (a pin).
func (c *argCheck) writable() {
	listed := map[string]bool{}
	for _, w := range c.inv.Writable {
		listed[w] = true
	}
	for k, m := range c.mounts {
		if m.kind != mountRW || listed[m.dest] || c.isPin(k) {
			continue
		}
		c.fail("args[%d]: %s %s %s makes host %s writable, but %s is not in the writable set", m.i, c.inv.Bwrap.Args[m.i], m.src, m.dest, m.src, m.dest)
	}
}

func (c *argCheck) isPin(k int) bool {
	m := c.mounts[k]
	for _, p := range c.mounts[:k] {
		if p.kind == mountRW && invocation.Within(m.dest, p.dest) && m.dest != p.dest &&
			m.src == filepath.Join(p.src, strings.TrimPrefix(m.dest, p.dest)) {
			return true
		}
	}
	return false
}

// hidden checks that each recorded hidden path is served by a mask at
// exactly that path: no later mount lands on it or above it.
func (c *argCheck) hidden() {
	for _, h := range c.inv.Hidden {
		if !invocation.IsCleanAbs(h) {
			c.fail("hidden path %q is not absolute and clean", h)
			continue
		}
		m := c.cover(h)
		switch {
		case m == nil:
			c.fail("hidden path %s is not masked", h)
		case m.kind != mountMask || m.dest != h:
			c.fail("hidden path %s is not masked: %s (args[%d]) is the last mount at or above it", h, c.inv.Bwrap.Args[m.i], m.i)
		}
	}
}

// arity is the number of values bwrap option opt takes (0 for a word
// that is not an option: the callers walk arguments Validate accepted).
func arity(opt string) int {
	n, _ := invocation.BwrapArity(opt)
	return n
}
