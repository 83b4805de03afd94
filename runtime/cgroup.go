package runtime

// This file holds the sandbox's own memory cgroup: the one bound on the
// memory of the whole sandbox (every process, tmpfs data, page cache),
// where the host delegates a cgroup v2 memory controller to the user.
// RLIMIT_AS bounds each process's address space only, and a tmpfs's
// --size bounds that tmpfs only.

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

	"golang.org/x/sys/unix"
)

// CgroupMemoryFactor is memory.max of a sandbox's own cgroup in units of
// memory_mb (the compiler records the product in Rlimits.MemoryMax): room
// for a few processes at their RLIMIT_AS, tmpfs data and page cache
// included.
const CgroupMemoryFactor = 4

// CgroupSupport is what DetectCgroup found.
type CgroupSupport struct {
	// Available is true when a sandbox can get a cgroup of its own with
	// memory.max: created under Parent.
	Available bool
	// Parent is the delegated cgroup directory (in the cgroup2 mount)
	// under which a sandbox's cgroup is created.
	Parent string
	// Detail says what was found, or why no cgroup can be had.
	Detail string
}

// CgroupHost is how DetectCgroup sees the machine; tests give it a
// synthetic tree.
type CgroupHost struct {
	// MountInfo is /proc/self/mountinfo; SelfCgroup /proc/self/cgroup.
	MountInfo, SelfCgroup []byte
	// Root is prepended to every mount point ("" on the real machine).
	Root string
	// UID is the caller's uid; a directory is usable when owned by it
	// with the owner's write bit (or when UID is 0).
	UID int
}

// DetectCgroup reports whether this process can give a sandbox a memory
// cgroup of its own.
func DetectCgroup() CgroupSupport {
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return CgroupSupport{Detail: "cannot read /proc/self/mountinfo: " + err.Error()}
	}
	sc, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return CgroupSupport{Detail: "cannot read /proc/self/cgroup: " + err.Error()}
	}
	return CgroupHost{MountInfo: mi, SelfCgroup: sc, UID: os.Getuid()}.Detect()
}

// Detect finds the deepest cgroup at or above this process's own (in the
// cgroup v2 hierarchy) that has the memory controller enabled for its
// children (cgroup.subtree_control) and that the caller may create
// children in and move processes into (the directory and its
// cgroup.procs writable by the caller): the delegation rules of
// cgroup v2 require write access to cgroup.procs of the common ancestor
// of the source and destination cgroups.
func (h CgroupHost) Detect() CgroupSupport {
	self := ""
	for _, l := range strings.Split(string(h.SelfCgroup), "\n") {
		if p, ok := strings.CutPrefix(l, "0::"); ok {
			self = p
		}
	}
	if self == "" {
		return CgroupSupport{Detail: "this process is in no cgroup v2 (only v1 hierarchies in /proc/self/cgroup)"}
	}
	mnt, root, ok := cgroup2Mount(h.MountInfo, self)
	if !ok {
		return CgroupSupport{Detail: "no cgroup2 file system is mounted that holds this process's cgroup " + self}
	}
	mnt = h.Root + mnt
	dir := path.Join(mnt, strings.TrimPrefix(self, root))
	if ctl := words(path.Join(mnt, "cgroup.controllers")); !ctl["memory"] {
		return CgroupSupport{Detail: fmt.Sprintf("the memory controller is not in cgroup v2 here (%s lists %s): it is bound to a cgroup v1 hierarchy (see /proc/cgroups)",
			path.Join(mnt, "cgroup.controllers"), keysOrNone(ctl))}
	}
	for d := dir; ; d = path.Dir(d) {
		if words(path.Join(d, "cgroup.subtree_control"))["memory"] &&
			h.usable(d) && h.usable(path.Join(d, "cgroup.procs")) {
			return CgroupSupport{Available: true, Parent: d,
				Detail: fmt.Sprintf("cgroup v2 memory controller delegated at %s: each sandbox runs in a cgroup of its own there, with memory.max = %d × memory_mb", d, CgroupMemoryFactor)}
		}
		if d == mnt || len(d) <= len(mnt) {
			break
		}
	}
	return CgroupSupport{Detail: fmt.Sprintf("no cgroup from %s up to %s both enables memory for its children (cgroup.subtree_control) and is writable by uid %d: the host delegates none to this user (run the agent in a delegated unit, e.g. systemd-run --user -p Delegate=yes)", dir, mnt, h.UID)}
}

// usable reports whether the caller may write p, by ownership and mode.
func (h CgroupHost) usable(p string) bool {
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
		r := UnescapeMount(f[3])
		if r == "/" || self == r || strings.HasPrefix(self, r+"/") {
			if r == "/" {
				r = ""
			}
			return UnescapeMount(f[4]), r, true
		}
	}
	return "", "", false
}

// UnescapeMount undoes mountinfo's octal escapes (\040 for a space,
// \011 tab, \012 newline, \134 backslash) in a root or mount point
// field of /proc/PID/mountinfo.
func UnescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
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
//
// The one call site, where the runner starts bwrap (runner.start in
// runtime/start.go; Close belongs with finish):
//
//	cg, err := DetectCgroup().ForInvocation(inv)
//	if err != nil { return 125, err }
//	if cg != nil {
//		defer cg.Close()
//		attr.Sys.UseCgroupFD, attr.Sys.CgroupFD = true, cg.FD()
//	}
func (s CgroupSupport) ForInvocation(inv *Invocation) (*Cgroup, error) {
	if !s.Available || inv.Rlimits.MemoryMax == 0 {
		return nil, nil
	}
	return NewCgroup(s.Parent, inv.Rlimits.MemoryMax)
}

// Cgroup is a sandbox's own cgroup.
type Cgroup struct {
	// Path is the cgroup's directory.
	Path string
	dir  *os.File
}

// NewCgroup creates a cgroup under parent (CgroupSupport.Parent) with
// memory.max set to memoryMax bytes and swap off (memory.swap.max 0,
// where the file exists), and opens it for clone's CLONE_INTO_CGROUP.
// The call site that starts bwrap sets
//
//	SysProcAttr{UseCgroupFD: true, CgroupFD: cg.FD()}
//
// so bwrap and everything it starts are charged to it from their first
// page; Close removes it after the sandbox is gone.
func NewCgroup(parent string, memoryMax uint64) (*Cgroup, error) {
	if memoryMax == 0 {
		return nil, errors.New("cgroup: memory.max 0")
	}
	p := path.Join(parent, fmt.Sprintf("bwpolicy-%d-%d", os.Getpid(), time.Now().UnixNano()))
	if err := os.Mkdir(p, 0o755); err != nil {
		return nil, fmt.Errorf("cgroup: %w", err)
	}
	c := &Cgroup{Path: p}
	if err := writeCgroupFile(path.Join(p, "memory.max"), strconv.FormatUint(memoryMax, 10)); err != nil {
		os.Remove(p)
		return nil, err
	}
	if _, err := os.Stat(path.Join(p, "memory.swap.max")); err == nil {
		if err := writeCgroupFile(path.Join(p, "memory.swap.max"), "0"); err != nil {
			os.Remove(p)
			return nil, err
		}
	}
	d, err := os.OpenFile(p, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		os.Remove(p)
		return nil, fmt.Errorf("cgroup: %w", err)
	}
	c.dir = d
	return c, nil
}

// FD returns the cgroup directory's file descriptor.
func (c *Cgroup) FD() int { return int(c.dir.Fd()) }

// Close kills whatever is left in the cgroup (cgroup.kill, Linux 5.14+),
// waits up to a second for it to empty, and removes it.
func (c *Cgroup) Close() error {
	defer c.dir.Close()
	if _, err := os.Stat(path.Join(c.Path, "cgroup.kill")); err == nil {
		writeCgroupFile(path.Join(c.Path, "cgroup.kill"), "1")
	}
	var err error
	for range 100 {
		if err = os.Remove(c.Path); err == nil || errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("cgroup: removing %s: %w", c.Path, err)
}

func writeCgroupFile(p, v string) error {
	if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
		return fmt.Errorf("cgroup: writing %q to %s: %w", v, p, err)
	}
	return nil
}
