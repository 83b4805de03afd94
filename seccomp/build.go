package seccomp

import (
	"fmt"
	"sort"
	"syscall"
)

// Program is a compiled filter, ready for bwrap's --seccomp FD.
type Program struct {
	// Arch is the architecture the program admits, for example "x86_64".
	Arch string
	// Bytes are the raw struct sock_filter records, 8 bytes each, in the
	// architecture's (little-endian) byte order.
	Bytes []byte
	// Blocked names the groups in force, in Groups order.
	Blocked []string
}

// Len returns the number of BPF instructions in the program.
func (p *Program) Len() int { return len(p.Bytes) / insnBytes }

// BuildNetwork compiles the deny-list for arch ("x86_64" or "aarch64",
// see NativeArch) with the groups named in relax left out, and the
// socket policy net adds (see Network). An unknown group name is an
// error that lists the valid names; so is relaxing a group without the
// groups in its RelaxWith. The order of relax does not matter. The
// network's groups follow the deny-list's in Program.Blocked; they
// cannot be relaxed by name: the network settings decide them.
func BuildNetwork(arch string, relax []string, net Network) (*Program, error) {
	return build(arch, relax, net, nil)
}

// build is BuildNetwork with an optional override of each group's
// errno (tests use it to prove that the filter, not the kernel,
// answered a call).
func build(arch string, relax []string, net Network, errnoOf func(Group) syscall.Errno) (*Program, error) {
	a, err := lookupArch(arch)
	if err != nil {
		return nil, err
	}
	relaxed, err := relaxSet(relax)
	if err != nil {
		return nil, err
	}
	if errnoOf == nil {
		errnoOf = func(g Group) syscall.Errno { return g.Errno }
	}
	var active []Group
	var blocked []string
	errnos := map[syscall.Errno]bool{}
	for _, g := range groups {
		if relaxed[g.Name] {
			continue
		}
		active = append(active, g)
		blocked = append(blocked, g.Name)
		errnos[errnoOf(g)] = true
	}
	for _, g := range net.groups() {
		active = append(active, g)
		blocked = append(blocked, g.Name)
		errnos[errnoOf(g)] = true
	}
	nr := func(name string) (uint32, error) {
		n, ok := a.nr[name]
		if !ok {
			return 0, fmt.Errorf("seccomp: internal error: no number for %s on %s", name, a.name)
		}
		return n, nil
	}
	errLabel := func(e syscall.Errno) string { return fmt.Sprintf("errno%d", e) }

	p := newAsm()
	// 1. Kill every architecture but the native one.
	p.ld(offArch)
	p.jump(opJeqK, a.audit, "", "kill")
	p.ld(offNr)
	// 2. Kill x32 (and any other number at or above the x32 bit) but -1.
	if a.x32 {
		p.jump(opJgeK, x32SyscallBit, "", "rules")
		p.jump(opJeqK, 0xffffffff, "allow", "kill")
		p.mark("rules")
	}
	// 3a. Syscalls denied whatever their arguments.
	for _, g := range active {
		for _, s := range g.Syscalls {
			n, err := nr(s)
			if err != nil {
				return nil, err
			}
			p.jump(opJeqK, n, errLabel(errnoOf(g)), "")
		}
	}
	// 3b. Syscalls denied by argument. Each syscall is in one rule only,
	// so a call that matched the number but not the argument is allowed.
	for gi, g := range active {
		for ri, r := range g.Args {
			n, err := nr(r.Syscall)
			if err != nil {
				return nil, err
			}
			next := fmt.Sprintf("next%d.%d", gi, ri)
			deny := errLabel(errnoOf(g))
			p.jump(opJeqK, n, "", next)
			p.ld(offArgs + 8*uint32(r.Arg)) // low 32 bits (little-endian)
			for i, v := range r.Values {
				// The last compare decides; earlier ones fall through.
				otherwise := ""
				if i == len(r.Values)-1 {
					otherwise = "allow"
					if r.Op == ArgNotIn {
						otherwise = deny
					}
				}
				switch r.Op {
				case ArgIn:
					p.jump(opJeqK, v, deny, otherwise)
				case ArgNotIn:
					p.jump(opJeqK, v, "allow", otherwise)
				case ArgHasBits:
					p.jump(opJsetK, v, deny, "allow")
				default:
					return nil, fmt.Errorf("seccomp: internal error: bad op %d", r.Op)
				}
			}
			p.mark(next)
		}
	}
	// 3c. socket(2), by family, type and protocol (Network).
	if err := emitSocket(p, a, net, errLabel, errnoOf); err != nil {
		return nil, err
	}
	// 4. Everything else, then the shared return instructions.
	p.mark("allow")
	p.ret(retAllow)
	p.mark("kill")
	p.ret(retKillProcess)
	list := make([]int, 0, len(errnos))
	for e := range errnos {
		list = append(list, int(e))
	}
	sort.Ints(list)
	for _, e := range list {
		p.mark(errLabel(syscall.Errno(e)))
		p.ret(retErrno | uint32(e)&0xffff)
	}
	b, err := p.assemble()
	if err != nil {
		return nil, err
	}
	return &Program{Arch: a.name, Bytes: b, Blocked: blocked}, nil
}
