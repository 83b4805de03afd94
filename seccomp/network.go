package seccomp

import (
	"fmt"
	"syscall"
)

// Network is the socket policy that goes with the network settings (H3).
// Whatever its fields, socket(AF_VSOCK) is refused (group vsock).
//
// Landlock's TCP rights (LANDLOCK_ACCESS_NET_CONNECT_TCP and _BIND_TCP)
// apply to connect(2) and bind(2) on TCP sockets only: the kernel's
// Landlock erratum 1 (ABI 4) says MPTCP, SMC and SCTP sockets are outside
// them by design, and a TCP Fast Open sendto/sendmsg/sendmmsg opens a
// connection without connect(2). UDP, ICMP and the other socket families
// are not covered at all. TCPOnly closes those paths for a port allowlist;
// NoUDP refuses datagram sockets.
type Network struct {
	// TCPOnly is set when a TCP port allowlist is in force. Then
	// socket(2) on AF_INET/AF_INET6 allows only SOCK_STREAM with protocol
	// 0 or IPPROTO_TCP (no MPTCP, SCTP, SMC; EPROTONOSUPPORT, as from a
	// kernel without them, so programs fall back to TCP) and SOCK_DGRAM
	// (unless NoUDP); other families than AF_UNIX, AF_INET, AF_INET6 and
	// AF_NETLINK get EAFNOSUPPORT (AF_SMC, AF_VSOCK, AF_TIPC, AF_RDS, ...
	// reach beyond the sandbox without TCP); and sendto, sendmsg and
	// sendmmsg with MSG_FASTOPEN get EOPNOTSUPP (as with Fast Open off).
	TCPOnly bool
	// NoUDP refuses SOCK_DGRAM sockets on AF_INET/AF_INET6 (UDP, UDP-Lite
	// and ICMP ping sockets) with EACCES.
	NoUDP bool
}

// Socket constants (identical on x86_64 and aarch64).
const (
	afUnix        = 1
	afInet        = 2
	afInet6       = 10
	afNetlink     = 16
	afVsock       = 40
	sockStream    = 1
	sockDgram     = 2
	sockTypeMask  = 0xf // SOCK_TYPE_MASK: drops SOCK_NONBLOCK, SOCK_CLOEXEC
	ipprotoIP     = 0
	ipprotoTCP    = 6
	msgFastOpen   = 0x20000000
	eACCES        = syscall.Errno(13)
	eProtoNoSupp  = syscall.Errno(93)
	eOpNotSupp    = syscall.Errno(95)
	eAFNoSupport  = syscall.Errno(97)
	groupTCPOnly  = "tcp-only"
	groupFamilies = "net-families"
	groupFastOpen = "tcp-fastopen"
	groupUDP      = "udp"
	groupVsock    = "vsock"
)

// netGroups are the groups Network can add, in their stable order. The
// socket(2) checks of tcp-only, net-families and udp are emitted by
// emitSocket (they look at several arguments); tcp-fastopen is an
// ordinary argument rule.
var netGroups = []Group{
	{
		Name:        groupTCPOnly,
		Description: "socket(AF_INET/AF_INET6) other than SOCK_STREAM with protocol 0 or IPPROTO_TCP, or SOCK_DGRAM: MPTCP, SCTP and SMC connect outside Landlock's TCP rights",
		Errno:       eProtoNoSupp,
	},
	{
		Name:        groupFamilies,
		Description: "socket families other than AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK (AF_SMC, AF_VSOCK, AF_TIPC, AF_RDS, ...) under a TCP allowlist",
		Errno:       eAFNoSupport,
	},
	{
		Name:        groupFastOpen,
		Description: "sendto, sendmsg and sendmmsg with MSG_FASTOPEN: TCP Fast Open connects without connect(2), outside Landlock's TCP rights",
		Args: []ArgRule{
			{Syscall: "sendto", Arg: 3, Op: ArgHasBits, Values: []uint32{msgFastOpen}, Names: []string{"MSG_FASTOPEN"}},
			{Syscall: "sendmsg", Arg: 2, Op: ArgHasBits, Values: []uint32{msgFastOpen}, Names: []string{"MSG_FASTOPEN"}},
			{Syscall: "sendmmsg", Arg: 3, Op: ArgHasBits, Values: []uint32{msgFastOpen}, Names: []string{"MSG_FASTOPEN"}},
		},
		Errno: eOpNotSupp,
	},
	{
		Name:        groupVsock,
		Description: "socket(AF_VSOCK), in every profile: hypervisor sockets are in no network namespace, so the host's vsock listeners and the hypervisor (CID 2) would stay reachable with the network unshared",
		Errno:       eAFNoSupport,
	},
	{
		Name:        groupUDP,
		Description: "socket(AF_INET/AF_INET6, SOCK_DGRAM): UDP, UDP-Lite and ICMP ping sockets (network.udp: false)",
		Errno:       eACCES,
	},
}

// groups returns the net groups n puts in force: vsock always.
func (n Network) groups() []Group {
	var out []Group
	for _, g := range netGroups {
		if g.Name == groupVsock || (g.Name == groupUDP && n.NoUDP) || (g.Name != groupUDP && g.Name != groupVsock && n.TCPOnly) {
			out = append(out, g)
		}
	}
	return out
}

// socketArgNames names the socket(2) constants the disassembler shows,
// per argument.
var socketArgNames = map[int]map[uint32]string{
	0: {afUnix: "AF_UNIX", afInet: "AF_INET", afInet6: "AF_INET6", afNetlink: "AF_NETLINK", afVsock: "AF_VSOCK"},
	1: {sockStream: "SOCK_STREAM", sockDgram: "SOCK_DGRAM"},
	2: {ipprotoIP: "IPPROTO_IP (0)", ipprotoTCP: "IPPROTO_TCP"},
}

// emitSocket emits the socket(2) checks of the active net groups, with A
// holding the syscall number. A call that is not socket(2) falls through
// to the next instruction; socket(2) ends in "allow" or an errno label.
func emitSocket(p *asm, a *archInfo, n Network, errLabel func(syscall.Errno) string, errnoOf func(Group) syscall.Errno) error {
	nr, ok := a.nr["socket"]
	if !ok {
		return fmt.Errorf("seccomp: internal error: no number for socket on %s", a.name)
	}
	deny := map[string]string{}
	for _, g := range n.groups() {
		deny[g.Name] = errLabel(errnoOf(g))
	}
	p.jump(opJeqK, nr, "", "socket.end")
	p.ld(offArgs) // family
	if !n.TCPOnly && !n.NoUDP {
		p.jump(opJeqK, afVsock, deny[groupVsock], "allow") // the rest: allowed
		p.mark("socket.end")
		return nil
	}
	p.jump(opJeqK, afVsock, deny[groupVsock], "")
	p.jump(opJeqK, afInet, "socket.inet", "")
	if n.TCPOnly {
		p.jump(opJeqK, afInet6, "socket.inet", "")
		p.jump(opJeqK, afUnix, "allow", "")
		p.jump(opJeqK, afNetlink, "allow", deny[groupFamilies])
	} else {
		p.jump(opJeqK, afInet6, "socket.inet", "allow") // other families: allowed
	}
	p.mark("socket.inet")
	p.ld(offArgs + 8) // type
	p.and(sockTypeMask)
	dgram := "allow"
	if n.NoUDP {
		dgram = deny[groupUDP]
	}
	if !n.TCPOnly {
		p.jump(opJeqK, sockDgram, dgram, "allow")
		p.mark("socket.end")
		return nil
	}
	p.jump(opJeqK, sockDgram, dgram, "")
	p.jump(opJeqK, sockStream, "", deny[groupTCPOnly])
	p.ld(offArgs + 16) // protocol
	p.jump(opJeqK, ipprotoIP, "allow", "")
	p.jump(opJeqK, ipprotoTCP, "allow", deny[groupTCPOnly])
	p.mark("socket.end")
	return nil
}
