// Package cgroup makes the sandbox's own memory cgroup: the one bound on
// the memory of the whole sandbox (every process, tmpfs data, page
// cache), where the host delegates a cgroup v2 memory controller to the
// user. RLIMIT_AS bounds each process's address space only, and a
// tmpfs's --size bounds that tmpfs only. bwrun detects the delegation
// (Detect), makes the cgroup (Support.ForInvocation) and clones bwrap
// into it. Standard library and golang.org/x/sys only.
package cgroup

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/bwpolicy/bwpolicy/runtime/hostprobe"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"golang.org/x/sys/unix"
)

// MemoryFactor is memory.max of a sandbox's own cgroup in units of
// memory_mb (the compiler records the product in Rlimits.MemoryMax): room
// for a few processes at their RLIMIT_AS, tmpfs data and page cache
// included.
const MemoryFactor = 4

// Support is what Detect found.
type Support struct {
	// Available is true when a sandbox can get a cgroup of its own with
	// memory.max: created under Parent.
	Available bool
	// Parent is the delegated cgroup directory (in the cgroup2 mount)
	// under which a sandbox's cgroup is created.
	Parent string
	// Pids is true when Parent also enables the pids controller for its
	// children: the sandbox's cgroup then gets pids.max too.
	Pids bool
	// Detail says what was found, or why no cgroup can be had.
	Detail string
}

// Host is how Detect sees the machine; tests give it a
// synthetic tree.
type Host struct {
	// MountInfo is /proc/self/mountinfo; SelfCgroup /proc/self/cgroup.
	MountInfo, SelfCgroup []byte
	// ProcCgroups is /proc/cgroups (nil: not read); a memory controller
	// bound to a v1 hierarchy there ends the search early.
	ProcCgroups []byte
	// Root is prepended to every mount point ("" on the real machine).
	Root string
	// UID is the caller's uid; a directory is usable when owned by it
	// with the owner's write bit (or when UID is 0).
	UID int
}

// Detect reports whether this process can give a sandbox a memory
// cgroup of its own.
// bwrun calls it once per command whose invocation sets memory.max, so
// the common negative answer (the memory controller bound to cgroup v1)
// is found from /proc/cgroups before the larger mountinfo is read.
func Detect() Support {
	h := Host{UID: os.Getuid()}
	h.ProcCgroups, _ = os.ReadFile("/proc/cgroups")
	if s, done := h.earlyV1(); done {
		return s
	}
	var err error
	if h.SelfCgroup, err = os.ReadFile("/proc/self/cgroup"); err != nil {
		return Support{Detail: "cannot read /proc/self/cgroup: " + err.Error()}
	}
	if h.MountInfo, err = os.ReadFile("/proc/self/mountinfo"); err != nil {
		return Support{Detail: "cannot read /proc/self/mountinfo: " + err.Error()}
	}
	return h.Detect()
}

// early answers without mountinfo when /proc/cgroups shows the memory
// controller bound to a v1 hierarchy or the process is in no cgroup v2.
func (h Host) early() (Support, bool) {
	if s, done := h.earlyV1(); done {
		return s, true
	}
	if h.self() == "" {
		return Support{Detail: "this process is in no cgroup v2 (only v1 hierarchies in /proc/self/cgroup)"}, true
	}
	return Support{}, false
}

// earlyV1 answers from /proc/cgroups alone: the memory controller bound
// to a v1 hierarchy.
func (h Host) earlyV1() (Support, bool) {
	for _, l := range strings.Split(string(h.ProcCgroups), "\n") {
		f := strings.Fields(l)
		if len(f) >= 4 && f[0] == "memory" && f[1] != "0" {
			return Support{Detail: fmt.Sprintf("the memory controller is not in cgroup v2 here: it is bound to cgroup v1 hierarchy %s (/proc/cgroups)", f[1])}, true
		}
	}
	return Support{}, false
}

// self is this process's cgroup v2 path ("" if none).
func (h Host) self() string {
	self := ""
	for _, l := range strings.Split(string(h.SelfCgroup), "\n") {
		if p, ok := strings.CutPrefix(l, "0::"); ok {
			self = p
		}
	}
	return self
}

// Detect finds the deepest cgroup at or above this process's own (in the
// cgroup v2 hierarchy) that has the memory controller enabled for its
// children (cgroup.subtree_control) and that the caller may create
// children in and move processes into (the directory and its
// cgroup.procs writable by the caller): the delegation rules of
// cgroup v2 require write access to cgroup.procs of the common ancestor
// of the source and destination cgroups.
func (h Host) Detect() Support {
	if s, done := h.early(); done {
		return s
	}
	self := h.self()
	mnt, root, ok := cgroup2Mount(h.MountInfo, self)
	if !ok {
		return Support{Detail: "no cgroup2 file system is mounted that holds this process's cgroup " + self}
	}
	mnt = h.Root + mnt
	dir := path.Join(mnt, strings.TrimPrefix(self, root))
	if ctl := words(path.Join(mnt, "cgroup.controllers")); !ctl["memory"] {
		return Support{Detail: fmt.Sprintf("the memory controller is not in cgroup v2 here (%s lists %s): it is bound to a cgroup v1 hierarchy (see /proc/cgroups)",
			path.Join(mnt, "cgroup.controllers"), keysOrNone(ctl))}
	}
	for d := dir; ; d = path.Dir(d) {
		if sub := words(path.Join(d, "cgroup.subtree_control")); sub["memory"] &&
			h.usable(d) && h.usable(path.Join(d, "cgroup.procs")) {
			return Support{Available: true, Parent: d, Pids: sub["pids"],
				Detail: fmt.Sprintf("cgroup v2 memory controller delegated at %s: each sandbox runs in a cgroup of its own there, with memory.max = %d × memory_mb", d, MemoryFactor)}
		}
		if d == mnt || len(d) <= len(mnt) {
			break
		}
	}
	return Support{Detail: fmt.Sprintf("no cgroup from %s up to %s both enables memory for its children (cgroup.subtree_control) and is writable by uid %d: the host delegates none to this user (run the agent in a delegated unit, e.g. systemd-run --user -p Delegate=yes)", dir, mnt, h.UID)}
}

// usable reports whether the caller may write p, by ownership and mode.
func (h Host) usable(p string) bool {
	var st unix.Stat_t
	if unix.Stat(p, &st) != nil {
		return false
	}
	return h.UID == 0 || (int(st.Uid) == h.UID && st.Mode&0o200 != 0)
}

// cgroup2Mount returns the mount point and root of the cgroup2 mount in
// mountinfo that holds cgroup path self.
func cgroup2Mount(mountinfo []byte, self string) (mnt, root string, ok bool) {
	sc := bufio.NewScanner(bytes.NewReader(mountinfo))
	for sc.Scan() {
		pre, post, found := strings.Cut(sc.Text(), " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !found || len(f) < 5 || len(g) < 1 || g[0] != "cgroup2" {
			continue
		}
		r := hostprobe.UnescapeMount(f[3])
		if r == "/" || self == r || strings.HasPrefix(self, r+"/") {
			if r == "/" {
				r = ""
			}
			return hostprobe.UnescapeMount(f[4]), r, true
		}
	}
	return "", "", false
}

// words reads a space-separated cgroup file as a set (empty when absent).
func words(p string) map[string]bool {
	b, _ := os.ReadFile(p)
	m := map[string]bool{}
	for _, w := range strings.Fields(string(b)) {
		m[w] = true
	}
	return m
}

func keysOrNone(m map[string]bool) string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	if len(out) == 0 {
		return "none"
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// ForInvocation returns the cgroup to run inv's sandbox in: nil (and no
// error) when s is not Available or inv sets no memory.max. An error
// means the host delegates a controller but the cgroup could not be
// made; the caller refuses to run (exit 125) rather than run unbounded.
// pids.max is set too where s.Pids: max_procs (inv.Rlimits.NProc, which
// counts the sandbox's first process) plus bwrap itself.
func (s Support) ForInvocation(inv *invocation.Invocation) (*Group, error) {
	if !s.Available || inv.Rlimits.MemoryMax == 0 {
		return nil, nil
	}
	l := Limits{MemoryMax: inv.Rlimits.MemoryMax}
	if s.Pids && inv.Rlimits.NProc != 0 {
		l.PidsMax = inv.Rlimits.NProc + 1
	}
	return New(s.Parent, l)
}

// Limits are the limits written into a sandbox's cgroup.
type Limits struct {
	// MemoryMax is memory.max in bytes (required).
	MemoryMax uint64
	// PidsMax is pids.max (0: not written).
	PidsMax uint64
}

// Group is a sandbox's own cgroup.
type Group struct {
	// Path is the cgroup's directory.
	Path string
	dir  *os.File
}

// New creates a cgroup under parent (Support.Parent) with
// memory.max set to l.MemoryMax bytes, swap off (memory.swap.max 0,
// where the file exists) and pids.max when l.PidsMax is set, and opens
// it for clone's CLONE_INTO_CGROUP. The runtime starts bwrap with
//
//	SysProcAttr{UseCgroupFD: true, CgroupFD: cg.FD()}
//
// so bwrap and everything it starts are charged to it from their first
// page; Close removes it after the sandbox is gone.
func New(parent string, l Limits) (*Group, error) {
	if l.MemoryMax == 0 {
		return nil, errors.New("cgroup: memory.max 0")
	}
	return Make(parent, l)
}

// Make is New without the memory.max requirement (a zero limit is not
// written): runtime's real-hierarchy test uses it where the memory
// controller is bound to cgroup v1. bwrun uses New.
func Make(parent string, l Limits) (*Group, error) {
	p := path.Join(parent, fmt.Sprintf("bwpolicy-%d-%d", os.Getpid(), time.Now().UnixNano()))
	if err := os.Mkdir(p, 0o755); err != nil {
		return nil, fmt.Errorf("cgroup: %w", err)
	}
	fail := func(err error) (*Group, error) {
		os.Remove(p)
		return nil, err
	}
	if l.MemoryMax != 0 {
		if err := writeCgroupFile(path.Join(p, "memory.max"), strconv.FormatUint(l.MemoryMax, 10)); err != nil {
			return fail(err)
		}
		if _, err := os.Stat(path.Join(p, "memory.swap.max")); err == nil {
			if err := writeCgroupFile(path.Join(p, "memory.swap.max"), "0"); err != nil {
				return fail(err)
			}
		}
	}
	if l.PidsMax != 0 {
		if err := writeCgroupFile(path.Join(p, "pids.max"), strconv.FormatUint(l.PidsMax, 10)); err != nil {
			return fail(err)
		}
	}
	d, err := os.OpenFile(p, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return fail(fmt.Errorf("cgroup: %w", err))
	}
	return &Group{Path: p, dir: d}, nil
}

// Abandon closes the cgroup's directory and leaves the cgroup, and what
// runs in it, alone (the S11 control build: Close would kill it through
// cgroup.kill).
func (c *Group) Abandon() { c.dir.Close() }

// FD returns the cgroup directory's file descriptor.
func (c *Group) FD() int { return int(c.dir.Fd()) }

// Close removes the cgroup; if processes are left in it (the runtime
// calls it after the sandbox's pid namespace is gone, so normally none
// are), it kills them first (cgroup.kill, Linux 5.14+) and waits up to a
// second for it to empty.
func (c *Group) Close() error {
	defer c.dir.Close()
	err := os.Remove(c.Path)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if _, err := os.Stat(path.Join(c.Path, "cgroup.kill")); err == nil {
		writeCgroupFile(path.Join(c.Path, "cgroup.kill"), "1")
	}
	for range 100 {
		time.Sleep(10 * time.Millisecond)
		if err = os.Remove(c.Path); err == nil || errors.Is(err, fs.ErrNotExist) {
			return nil
		}
	}
	return fmt.Errorf("cgroup: removing %s: %w", c.Path, err)
}

func writeCgroupFile(p, v string) error {
	if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
		return fmt.Errorf("cgroup: writing %q to %s: %w", v, p, err)
	}
	return nil
}
