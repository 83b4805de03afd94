package verify

// This file proves the process-level invariants: namespaces (S2), the
// seccomp program (H2) and the file descriptors bwrap is handed.

import (
	"sort"
	"strconv"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

func (c *checker) namespaces() {
	// bwrap reads the options in order: --share-net after --unshare-all
	// shares the network again; before it, it is overridden.
	type ns struct{ user, ipc, pid, net, uts, cgroup bool }
	var s ns
	for _, f := range c.t.Flags {
		switch f.Option {
		case "--unshare-all":
			s = ns{true, true, true, true, true, true}
		case "--share-net":
			s.net = false
		case "--unshare-user", "--unshare-user-try":
			s.user = true
		case "--unshare-ipc":
			s.ipc = true
		case "--unshare-pid":
			s.pid = true
		case "--unshare-net":
			s.net = true
		case "--unshare-uts":
			s.uts = true
		case "--unshare-cgroup", "--unshare-cgroup-try":
			s.cgroup = true
		}
	}
	if _, ok := c.t.has("--unshare-all"); !ok {
		c.fail(InvNamespaces, "--unshare-all", "missing: every namespace must be unshared (S2)")
	}
	for _, x := range []struct {
		name string
		on   bool
	}{{"user", s.user}, {"ipc", s.ipc}, {"pid", s.pid}, {"uts", s.uts}, {"cgroup", s.cgroup}} {
		if !x.on {
			c.fail(InvNamespaces, "--unshare-"+x.name, "the %s namespace is shared with the host", x.name)
		}
	}
	network := c.inv.Profile == "network"
	switch {
	case !s.net && !network:
		c.fail(InvNamespaces, "--share-net", "the host network is shared, but profile %q has none (only the network profile shares it)", c.inv.Profile)
	case s.net && network:
		c.fail(InvNamespaces, "--share-net", "profile network shares the host network, but the arguments unshare it")
	}
	for _, opt := range []string{"--die-with-parent", "--new-session"} {
		if _, ok := c.t.has(opt); !ok {
			c.fail(InvNamespaces, opt, "missing (S2)")
		}
	}
	info := false
	for _, u := range c.t.FDs {
		info = info || u.Option == "--info-fd"
	}
	if !info {
		c.fail(InvNamespaces, "--info-fd", "missing: the runtime learns the sandbox's first process from it and kills the sandbox's pid namespace through it when the command ends (S11); bwrun refuses such an invocation")
	}
	if _, user := c.t.has("--unshare-user"); !user {
		c.fail(InvNamespaces, "--unshare-user", "missing: --unshare-all only tries the user namespace (H1), and --disable-userns needs it")
	}
}

// maxInsns is the kernel's limit on a classic BPF program (BPF_MAXINSNS).
const maxInsns = 4096

func (c *checker) seccomp() {
	var uses []FDUse
	for _, u := range c.t.FDs {
		if u.Option == "--seccomp" {
			uses = append(uses, u)
		}
	}
	switch {
	case len(uses) == 0:
		c.fail(InvSeccomp, "--seccomp", "no seccomp filter (H2)")
		return
	case len(uses) > 1:
		c.fail(InvSeccomp, "--seccomp", "given %d times: bwrap takes one program", len(uses))
	}
	declared := false
	for _, fd := range c.inv.FDs {
		if fd.Num == uses[0].FD && fd.Kind == invocation.FDSeccomp {
			declared = true
		}
	}
	if !declared {
		c.fail(InvSeccomp, "--seccomp", "fd %d is not declared as the seccomp program", uses[0].FD)
	}
	sc := c.inv.Seccomp
	switch {
	case sc == nil || len(sc.Program) == 0:
		c.fail(InvSeccomp, "--seccomp", "the invocation carries no seccomp program")
	case len(sc.Program)%8 != 0:
		c.fail(InvSeccomp, "--seccomp", "the program is %d bytes, not whole 8-byte sock_filter records", len(sc.Program))
	case len(sc.Program)/8 > maxInsns:
		c.fail(InvSeccomp, "--seccomp", "the program has %d instructions, more than the kernel accepts (%d)", len(sc.Program)/8, maxInsns)
	}
}

// fdKind is the fd kind each option reads.
var fdKind = map[string]string{
	"--ro-bind-data":   invocation.FDEmpty,
	"--info-fd":        invocation.FDInfo,
	"--block-fd":       invocation.FDBlock,
	"--json-status-fd": invocation.FDStatus,
	"--seccomp":        invocation.FDSeccomp,
}

func (c *checker) fds() {
	kinds := map[int]string{}
	for _, fd := range c.inv.FDs {
		name := "fd " + strconv.Itoa(fd.Num)
		if fd.Num < 3 {
			c.fail(InvFDs, name, "fds 0-2 are the command's stdio")
		}
		if _, dup := kinds[fd.Num]; dup {
			c.fail(InvFDs, name, "declared twice")
			continue
		}
		kinds[fd.Num] = fd.Kind
	}
	used := map[int]string{}
	for _, u := range c.t.FDs {
		name := "fd " + strconv.Itoa(u.FD)
		kind, ok := kinds[u.FD]
		switch {
		case !ok:
			c.fail(InvFDs, name, "%s (args[%d]) uses an undeclared fd", u.Option, u.Index)
		case kind != fdKind[u.Option]:
			c.fail(InvFDs, name, "%s (args[%d]) reads an fd of kind %q, but it is declared %q", u.Option, u.Index, fdKind[u.Option], kind)
		}
		if prev, twice := used[u.FD]; twice {
			c.fail(InvFDs, name, "used by both %s and %s (args[%d]): bwrap consumes an fd per use", prev, u.Option, u.Index)
		}
		used[u.FD] = u.Option
	}
	var unused []int
	for n := range kinds {
		if _, ok := used[n]; !ok {
			unused = append(unused, n)
		}
	}
	sort.Ints(unused)
	for _, n := range unused {
		c.fail(InvFDs, "fd "+strconv.Itoa(n), "declared (%s) but no argument uses it", kinds[n])
	}
}
