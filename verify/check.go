package verify

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// The invariants, by name. A Violation names one of them.
const (
	// InvReplay: the arguments replay into a mount table (every option
	// known to the verifier, every path absolute and clean, every
	// --remount-ro on a mount point).
	InvReplay = "replay"
	// InvHiddenMasked: every hidden path that existed on the host (S4, S5,
	// H4, as recorded) is invisible in the sandbox: wherever a bind shows
	// it, a tmpfs or an empty file is mounted on it (or above it); and
	// every path of the invocation's hidden list is a mask at exactly
	// that path. The only exceptions are S6/S8 binds that bring back a
	// part of a hidden directory at its own path, inside the mask.
	InvHiddenMasked = "hidden-masked"
	// InvWritableSet: the host paths the sandbox can write are exactly
	// the writable set: every writable bind is listed (or a pin that
	// re-binds a path already writable at the same place), and every
	// listed path is writable.
	InvWritableSet = "writable-set"
	// InvCovered: no mount after a mask lands at or above the masked path.
	InvCovered = "covered-protection"
	// InvPinned: no directory between a writable bind and a mask inside it
	// can be renamed (each is a mount point), so a command cannot move a
	// hidden path out from under its mask (S7).
	InvPinned = "pinned-parents"
	// InvProtected: every entry kept read-only inside a writable
	// directory (H9, recorded present and reached without a symlink) is
	// read-only in the sandbox wherever a bind shows it (its own path,
	// or its place below the destination of a bind mounted elsewhere),
	// and no directory between it and its writable mount can be renamed.
	InvProtected = "protected-read-only"
	// InvMountPoint: bwrap never has to create a mount point on the host,
	// nor mount over a symlink (as far as the recorded host state tells).
	InvMountPoint = "mount-point"
	// InvRootRO: the host root, read-only, at "/" (S3).
	InvRootRO = "root-read-only"
	// InvProcDevTmp: a fresh /dev, read-only, with a tmpfs /dev/shm; a
	// private /proc; a tmpfs /tmp (S3).
	InvProcDevTmp = "proc-dev-tmp"
	// InvTmpfsBounded: when the invocation records a tmpfs bound
	// (rlimits.tmp_bytes), /tmp and /dev/shm are bounded to exactly it and
	// every other tmpfs to at most it (S3): an unbounded tmpfs may take
	// half of the machine's RAM.
	InvTmpfsBounded = "tmpfs-bounded"
	// InvNamespaces: every namespace unshared, the network shared exactly
	// under the network profile, --die-with-parent, --new-session (S2).
	InvNamespaces = "namespaces"
	// InvSeccomp: one --seccomp with a declared seccomp fd and a
	// non-empty program of whole sock_filter records (H2).
	InvSeccomp = "seccomp"
	// InvFDs: every fd the arguments use is declared once, with the kind
	// its option reads, and used once; every declared fd is used.
	InvFDs = "fds"
	// InvChdir: the arguments start commands where the invocation says.
	InvChdir = "chdir"
)

// Invariants lists every invariant Check proves, in the order it checks.
var Invariants = []string{InvReplay, InvHiddenMasked, InvCovered, InvWritableSet, InvPinned, InvProtected,
	InvMountPoint, InvRootRO, InvProcDevTmp, InvTmpfsBounded, InvNamespaces, InvSeccomp, InvFDs, InvChdir, InvHomeLayout, InvExposeRoots}

// Violation is one invariant the invocation breaks.
type Violation struct {
	Invariant string
	// Path is the sandbox path (or the option, or the fd) concerned.
	Path   string
	Detail string
}

// String is the violation on one line: invariant, path, detail.
func (v Violation) String() string { return v.Invariant + ": " + v.Path + ": " + v.Detail }

// checker carries one Check.
type checker struct {
	inv     *invocation.Invocation
	t       *MountTable
	rec     recorded
	secrets []secret
	ex      explained
	masks   map[string]bool // sandbox paths meant to be masked
	out     []Violation
	seen    map[string]bool
}

func (c *checker) fail(inv, p, format string, a ...any) {
	v := Violation{inv, p, fmt.Sprintf(format, a...)}
	if c.seen[v.String()] {
		return
	}
	c.seen[v.String()] = true
	c.out = append(c.out, v)
}

// Check replays the invocation's arguments and proves its invariants
// against the host state it records. It returns nothing when the
// invocation is sound.
func Check(inv *invocation.Invocation) []Violation {
	inv = onePerPath(inv)
	c := &checker{inv: inv, rec: newRecorded(inv), seen: map[string]bool{}}
	t, err := Replay(inv.Bwrap.Args)
	if err != nil {
		where, msg := "args", err.Error()
		if re, ok := err.(*ReplayError); ok {
			where, msg = fmt.Sprintf("args[%d]", re.Index), re.Msg
			if re.Option != "" {
				msg = re.Option + ": " + msg
			}
		}
		c.fail(InvReplay, where, "%s", msg)
		return c.out
	}
	c.t = t
	c.ex = explainArgs(inv)
	c.secrets = c.rec.secrets(inv)
	c.masks = map[string]bool{}
	for _, s := range c.secrets {
		c.masks[s.Host] = true
	}
	c.hiddenMasked()
	c.covered()
	c.writableSet()
	c.pinned()
	c.protected()
	c.mountPoints()
	c.rootReadOnly()
	c.procDevTmp()
	c.pid1Memory()
	c.tmpfsBounded()
	c.namespaces()
	c.seccomp()
	c.fds()
	c.chdir()
	c.homeLayout()
	c.exposeRoots()
	return c.out
}

// isMask reports whether m hides what is below it: an empty tmpfs or an
// empty file at a path meant to be hidden.
func (c *checker) isMask(m *Mount) bool {
	return m != nil && (m.Kind == Tmpfs || m.Kind == Data) && c.masks[m.Dest]
}

// where renders a mount with its position and rule.
func (c *checker) where(m *Mount) string {
	return fmt.Sprintf("%s (args[%d], %s)", m.Args(), m.Index, c.ex.rule(m.Index))
}

// exception reports whether bind b is a documented exception inside a
// mask: an S6 or S8 bind of a path onto itself, lying strictly inside a
// visible mask or a fresh tmpfs (directly, or inside another exception
// there).
func (c *checker) exception(b *Mount) bool {
	if !b.HostBacked() || b.Source != b.Dest || b.Dest == "/" {
		return false
	}
	r := c.ex.rule(b.Index)
	switch {
	case r == invocation.ReasonPins || r == invocation.ReasonProtectedEntries:
		// A pin or a protection inside the profile home (an S6
		// exception itself) keeps part of it read-only or in place.
		for a := path.Dir(b.Dest); a != "/"; a = path.Dir(a) {
			if m := c.t.MountAt(a); m != nil && m != b && c.ex.rule(m.Index) == invocation.ReasonHermesExceptions && c.exception(m) {
				return true
			}
		}
		return false
	case !r.BindsBack():
		return false
	}
	for a := path.Dir(b.Dest); ; a = path.Dir(a) {
		// Inside a mask, or inside a fresh tmpfs (the home layout's,
		// H10): the bind shows only itself there.
		if m := c.t.MountAt(a); c.isMask(m) || m != nil && m.Kind == Tmpfs {
			return true
		}
		if a == "/" {
			return false
		}
	}
}

func (c *checker) hiddenMasked() {
	// The hidden list: a mask at exactly each path.
	for _, h := range c.inv.Hidden {
		m := c.t.MountAt(h)
		if !c.isMask(m) {
			got, _ := c.t.Lookup(h)
			c.fail(InvHiddenMasked, h, "listed hidden, but no tmpfs or empty file is mounted there: it shows %s", c.served(got))
		}
	}
	// Every secret, wherever a bind shows it.
	visible := c.t.Visible()
	for _, s := range c.secrets {
		for _, b := range visible {
			if !b.HostBacked() {
				continue
			}
			switch {
			case within(s.Host, b.Source):
				// b shows the secret at p, unless a deeper mount serves p.
				p := join(b.Dest, rel(s.Host, b.Source))
				if got, _ := c.t.Lookup(p); got == b {
					c.fail(InvHiddenMasked, p, "host path %s is visible through %s: no mask is mounted on it", s.describe(), c.where(b))
				}
			case within(b.Source, s.Host):
				// b shows a part of the hidden path.
				if !c.exception(b) {
					c.fail(InvHiddenMasked, b.Dest, "%s shows %s, which lies inside the hidden path %s (only an S6/S8 bind of a path onto itself, inside the mask, may)", c.where(b), b.Source, s.describe())
				}
			}
		}
	}
}

// served describes what the sandbox sees at a path.
func (c *checker) served(m *Mount) string {
	if m == nil {
		return "nothing mounted"
	}
	return c.where(m)
}

func (c *checker) covered() {
	for _, m := range c.t.Mounts {
		if (m.Kind != Tmpfs && m.Kind != Data) || !c.masks[m.Dest] {
			continue
		}
		for _, l := range c.t.Mounts {
			if l.Index > m.Index && within(m.Dest, l.Dest) {
				c.fail(InvCovered, m.Dest, "%s comes after the mask %s and covers it", c.where(l), c.where(m))
			}
		}
	}
}

// isPin reports whether writable bind b re-binds, at the same place, a
// host path its parent mount already shows writable: it makes nothing
// newly writable (S7 pins are such binds).
func (c *checker) isPin(b *Mount) bool {
	p := c.t.Parent(b)
	return p != nil && p.Kind == Bind && p.Writable && HostPathAt(p, b.Dest) == b.Source
}

func (c *checker) writableSet() {
	listed := map[string]bool{}
	for _, w := range c.inv.Writable {
		listed[w] = true
	}
	for _, b := range c.t.Visible() {
		if b.Kind != Bind || !b.Writable || listed[b.Dest] || c.isPin(b) {
			continue
		}
		c.fail(InvWritableSet, b.Dest, "%s makes host %s writable, but it is not in the writable set", c.where(b), b.Source)
	}
	for _, w := range c.inv.Writable {
		m, ok := c.t.Lookup(w)
		if !ok {
			c.fail(InvWritableSet, w, "listed writable, but the sandbox cannot write there: it shows %s", c.served(m))
		}
	}
}

func (c *checker) pinned() {
	for _, m := range c.t.Visible() {
		if !c.isMask(m) {
			continue
		}
		for a := path.Dir(m.Dest); a != "/"; a = path.Dir(a) {
			e, w := c.t.Lookup(a)
			if e != nil && e.HostBacked() && w && e.Dest != a {
				c.fail(InvPinned, a, "a command can rename this directory (it lies in the writable %s and is not a mount point), moving the hidden %s out from under its mask", c.where(e), m.Dest)
			}
		}
	}
}

func (c *checker) protected() {
	for _, pc := range c.inv.Preconditions {
		// Every H9 entry, whatever its scope (the profile home's too).
		if pc.Why != invocation.ReasonProtectedEntries || (pc.Kind != invocation.KindFile && pc.Kind != invocation.KindDir) {
			continue
		}
		if real, _, ok := c.rec.resolve(pc.Path); !ok || real != pc.Path {
			continue // reached through a symlink: cannot be protected (compile warns)
		}
		for _, q := range c.placesShowing(pc.Path) {
			e, w := c.t.Lookup(q)
			if e == nil || !e.HostBacked() || HostPathAt(e, q) != pc.Path {
				continue // masked, or another host path shown there
			}
			if w {
				shown := "it"
				if q != pc.Path {
					shown = "host " + pc.Path + " shown here"
				}
				c.fail(InvProtected, q, "a command can change %s (it lies in the writable %s), and it runs outside the sandbox later", shown, c.where(e))
				continue
			}
			for a := path.Dir(q); a != "/"; a = path.Dir(a) {
				pe, pw := c.t.Lookup(a)
				if pe != nil && pe.HostBacked() && pw && pe.Dest != a {
					c.fail(InvProtected, a, "a command can rename this directory (it lies in the writable %s and is not a mount point), moving the protected %s away", c.where(pe), pc.Path)
				}
			}
		}
	}
}

// placesShowing returns the sandbox paths at which a visible bind could
// show host path p: its own path (the host root), and its place below
// the destination of every bind whose source holds it (a bind mounted
// elsewhere shows it there), sorted, each once.
func (c *checker) placesShowing(p string) []string {
	out := []string{p}
	for _, m := range c.t.Visible() {
		if m.HostBacked() && within(p, m.Source) {
			out = append(out, join(m.Dest, rel(p, m.Source)))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (c *checker) mountPoints() {
	for _, m := range c.t.Mounts {
		o := m.Over
		if o == nil || !o.HostBacked() {
			continue
		}
		hp := HostPathAt(o, m.Dest)
		real, kind, ok := c.rec.resolve(hp)
		switch {
		case !ok:
			c.fail(InvMountPoint, m.Dest, "the mount point %s of %s is a symlink loop on the host", hp, c.where(m))
		case real != hp:
			c.fail(InvMountPoint, m.Dest, "the mount point %s of %s goes through a symlink on the host (to %s): bwrap 0.12 refuses it, older versions mount elsewhere", hp, c.where(m), real)
		case kind == invocation.KindAbsent:
			c.fail(InvMountPoint, m.Dest, "the mount point %s of %s does not exist on the host: bwrap %s %s", hp, c.where(m), createVerb(o), c.where(o))
		case kind == "" && o.Source != o.Dest:
			// m lands inside a bind of another host directory: what is
			// there is not what the compiler looked at.
			c.fail(InvMountPoint, m.Dest, "%s lands inside %s, where the host path %s was never looked at: if it is missing, bwrap %s bind", c.where(m), c.where(o), hp, createVerb(o))
		}
	}
}

// createVerb says what bwrap does with a missing mount point in o.
func createVerb(o *Mount) string {
	if o.Writable {
		return "creates it on the host, in the writable"
	}
	return "fails on the read-only"
}

func (c *checker) rootReadOnly() {
	m := c.t.MountAt("/")
	switch {
	case m == nil:
		c.fail(InvRootRO, "/", "nothing is mounted at /: the sandbox's root is bwrap's own writable tmpfs, not the host root read-only")
	case m.Kind != ROBind || m.Source != "/":
		c.fail(InvRootRO, "/", "/ shows %s, not the host root read-only (--ro-bind / /)", c.where(m))
	case m.Writable:
		c.fail(InvRootRO, "/", "the root is writable")
	}
}

func (c *checker) procDevTmp() {
	for _, want := range []struct {
		p    string
		kind Kind
		what string
	}{{"/dev", Dev, "--dev /dev"}, {"/dev/shm", Tmpfs, "--tmpfs /dev/shm"}, {"/proc", Proc, "--proc /proc"}, {"/tmp", Tmpfs, "--tmpfs /tmp"}} {
		m := c.t.MountAt(want.p)
		if m == nil || m.Kind != want.kind {
			got, _ := c.t.Lookup(want.p)
			c.fail(InvProcDevTmp, want.p, "want %s, the sandbox shows %s", want.what, c.served(got))
		}
	}
	if m := c.t.MountAt("/dev"); m != nil && m.Kind == Dev && m.Writable {
		c.fail(InvProcDevTmp, "/dev", "writable: bwrap's /dev is a tmpfs without a size bound (want --remount-ro /dev after --tmpfs /dev/shm)")
	}
}

func (c *checker) tmpfsBounded() {
	limit := c.inv.Rlimits.TmpBytes
	if limit == 0 {
		return // recorded unbounded: the compiler warned
	}
	for _, m := range c.t.Mounts {
		if m.Kind != Tmpfs {
			continue
		}
		switch {
		case m.Size == 0:
			c.fail(InvTmpfsBounded, m.Dest, "%s has no --size: it may fill half of the machine's RAM", c.where(m))
		case (m.Dest == "/tmp" || m.Dest == "/dev/shm") && m.Size != limit:
			c.fail(InvTmpfsBounded, m.Dest, "%s, but the invocation records tmp_bytes %d", c.where(m), limit)
		case m.Size > limit:
			c.fail(InvTmpfsBounded, m.Dest, "%s is larger than tmp_bytes %d", c.where(m), limit)
		}
	}
}

func (c *checker) chdir() {
	switch {
	case c.t.ChdirIndex < 0:
		c.fail(InvChdir, c.inv.Chdir, "no --chdir: commands would start in bwrap's default directory")
	case c.t.Chdir != c.inv.Chdir:
		c.fail(InvChdir, c.t.Chdir, "the arguments start commands in %s, the invocation says %s", c.t.Chdir, c.inv.Chdir)
	}
}

// Summary renders violations one a line, "INVARIANT: PATH: detail".
func Summary(vs []Violation) string {
	var b strings.Builder
	for _, v := range vs {
		b.WriteString(v.String())
		b.WriteByte('\n')
	}
	return b.String()
}
