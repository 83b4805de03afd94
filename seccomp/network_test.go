package seccomp

import (
	"slices"
	"strings"
	"testing"
)

const (
	sockNonblock  = 0x800
	sockCloexec   = 0x80000
	sockRaw       = 3
	sockSeqpacket = 5
	ipprotoUDP    = 17
	ipprotoSCTP   = 132
	ipprotoMPTCP  = 262
	afSMC         = 43
	afPacket      = 17
)

// TestNetworkSocket: the socket(2) verdicts of every Network setting
// (none included: AF_VSOCK is refused in every profile), including the
// SOCK_NONBLOCK/SOCK_CLOEXEC flags masked off the type.
func TestNetworkSocket(t *testing.T) {
	allow := uint32(retAllow)
	noProto, noFamily, noUDP := errnoAction(eProtoNoSupp), errnoAction(eAFNoSupport), errnoAction(eACCES)
	type c struct {
		family, typ, proto uint64
		tcpOnly, noUDP     uint32 // verdict under TCPOnly; under NoUDP
	}
	cases := map[string]c{
		"tcp":                 {afInet, sockStream, 0, allow, allow},
		"tcp6 IPPROTO_TCP":    {afInet6, sockStream, ipprotoTCP, allow, allow},
		"tcp nonblock":        {afInet, sockStream | sockNonblock | sockCloexec, 0, allow, allow},
		"mptcp":               {afInet, sockStream, ipprotoMPTCP, noProto, allow},
		"mptcp6 cloexec":      {afInet6, sockStream | sockCloexec, ipprotoMPTCP, noProto, allow},
		"sctp stream":         {afInet, sockStream, ipprotoSCTP, noProto, allow},
		"sctp seqpacket":      {afInet6, sockSeqpacket, ipprotoSCTP, noProto, allow},
		"raw":                 {afInet, sockRaw, 1, noProto, allow},
		"udp":                 {afInet, sockDgram, 0, allow, noUDP},
		"udp6 nonblock":       {afInet6, sockDgram | sockNonblock, ipprotoUDP, allow, noUDP},
		"ping":                {afInet, sockDgram | sockCloexec, 1, allow, noUDP},
		"unix":                {afUnix, sockDgram, 0, allow, allow},
		"netlink":             {afNetlink, sockDgram | sockCloexec, 0, allow, allow},
		"smc":                 {afSMC, sockStream, 0, noFamily, allow},
		"vsock":               {afVsock, sockStream, 0, noFamily, allow},
		"packet":              {afPacket, sockRaw, 0, noFamily, allow},
		"high bits of family": {1<<32 | afInet, sockStream, ipprotoMPTCP, noProto, allow},
	}
	for _, arch := range Arches() {
		for _, net := range []Network{{}, {TCPOnly: true}, {NoUDP: true}, {TCPOnly: true, NoUDP: true}} {
			p, err := BuildNetwork(arch, nil, net)
			if err != nil {
				t.Fatal(err)
			}
			for name, k := range cases {
				want := allow
				if net.TCPOnly && k.tcpOnly != allow {
					want = k.tcpOnly
				}
				if net.NoUDP && k.noUDP != allow {
					want = k.noUDP
				}
				if k.family == afVsock {
					want = noFamily // in every profile
				}
				expect(t, arch+" "+name+" "+strings.Join(p.Blocked[len(p.Blocked)-len(net.groups()):], "+"),
					call(t, p, "socket", k.family, k.typ, k.proto), want)
			}
			// The deny-list itself is still there.
			expect(t, arch+" ptrace", call(t, p, "ptrace", 0), errnoAction(EPERM))
		}
	}
}

// TestNetworkFastOpen: MSG_FASTOPEN is refused on each send call, in its
// own flags argument, only under TCPOnly; other flags pass.
func TestNetworkFastOpen(t *testing.T) {
	for _, arch := range Arches() {
		on, _ := BuildNetwork(arch, nil, Network{TCPOnly: true})
		off, _ := BuildNetwork(arch, nil, Network{NoUDP: true})
		for _, c := range []struct {
			name string
			args []uint64
		}{
			{"sendto", []uint64{3, 0, 1, msgFastOpen | 0x4000, 0, 0}},
			{"sendmsg", []uint64{3, 0, msgFastOpen}},
			{"sendmmsg", []uint64{3, 0, 1, msgFastOpen}},
		} {
			expect(t, arch+" "+c.name+" MSG_FASTOPEN", call(t, on, c.name, c.args...), errnoAction(eOpNotSupp))
			expect(t, arch+" "+c.name+" MSG_FASTOPEN without TCPOnly", call(t, off, c.name, c.args...), retAllow)
			plain := slices.Clone(c.args)
			for i := range plain {
				plain[i] &^= msgFastOpen
			}
			expect(t, arch+" "+c.name+" plain", call(t, on, c.name, plain...), retAllow)
		}
	}
}

// TestNetworkNone: an empty Network builds the same bytes as Build.
func TestNetworkNone(t *testing.T) {
	for _, arch := range Arches() {
		a, _ := BuildNetwork(arch, nil, Network{})
		if b := mustBuild(t, arch); string(a.Bytes) != string(b.Bytes) || !slices.Equal(a.Blocked, b.Blocked) {
			t.Errorf("%s: Network{} changes the program", arch)
		}
		p, _ := BuildNetwork(arch, []string{"ptrace"}, Network{TCPOnly: true, NoUDP: true})
		want := []string{groupTCPOnly, groupFamilies, groupFastOpen, groupVsock, groupUDP}
		if got := p.Blocked[len(p.Blocked)-5:]; !slices.Equal(got, want) || slices.Contains(p.Blocked, "ptrace") {
			t.Errorf("%s: blocked %v", arch, p.Blocked)
		}
	}
}

// TestNetworkDisassembly: the socket checks read as such.
func TestNetworkDisassembly(t *testing.T) {
	p, _ := BuildNetwork("x86_64", nil, Network{TCPOnly: true, NoUDP: true})
	lines, err := Disassemble(p.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(lines, "\n")
	for _, want := range []string{"; socket", "socket AF_INET6", "and #0xf", "socket SOCK_STREAM", "socket IPPROTO_TCP",
		"sendmsg MSG_FASTOPEN", "ERRNO(EPROTONOSUPPORT)", "ERRNO(EAFNOSUPPORT)", "ERRNO(EOPNOTSUPP)", "ERRNO(EACCES)"} {
		if !strings.Contains(all, want) {
			t.Errorf("disassembly lacks %q:\n%s", want, all)
		}
	}
}
