package main

// The socket probes of the H3 bypass tests: each opens a connection (or
// sends a datagram) in a way Landlock's TCP rights do not see.

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
)

const (
	ipprotoMPTCP = 262
	msgFastOpen  = 0x20000000
)

// sockProbe runs one probe against HOST:PORT (IPv4): "mptcp" connects an
// IPPROTO_MPTCP socket, "fastopen" connects a TCP socket with
// sendto(MSG_FASTOPEN) instead of connect(2), "udp" sends a datagram.
// Each then reads one line and prints "connected: LINE"; a failure
// prints "STEP failed: ERR (errno N)" and exits 1.
func sockProbe(kind, addr string) {
	host, port, err := net.SplitHostPort(addr)
	ip := net.ParseIP(host).To4()
	p, perr := strconv.Atoi(port)
	if err != nil || ip == nil || perr != nil {
		usage()
	}
	sa := &syscall.SockaddrInet4{Port: p}
	copy(sa.Addr[:], ip)
	typ, proto := syscall.SOCK_STREAM, 0
	switch kind {
	case "mptcp":
		proto = ipprotoMPTCP
	case "udp":
		typ = syscall.SOCK_DGRAM
	}
	fd, err := syscall.Socket(syscall.AF_INET, typ|syscall.SOCK_CLOEXEC, proto)
	if err != nil {
		sockFail("socket", err)
	}
	tv := syscall.Timeval{Sec: 2}
	syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv)
	switch kind {
	case "mptcp":
		err = syscall.Connect(fd, sa)
	case "fastopen":
		err = syscall.Sendto(fd, []byte("GET / HTTP/1.0\r\n\r\n"), msgFastOpen, sa)
	case "udp":
		err = syscall.Sendto(fd, []byte("ping\n"), 0, sa)
	}
	if err != nil {
		sockFail(kind, err)
	}
	buf := make([]byte, 256)
	n, err := syscall.Read(fd, buf)
	if err != nil {
		sockFail("read", err)
	}
	line, _, _ := strings.Cut(string(buf[:n]), "\n")
	fmt.Printf("connected: %s\n", strings.TrimRight(line, "\r"))
}

func sockFail(step string, err error) {
	n := 0
	if e, ok := err.(syscall.Errno); ok {
		n = int(e)
	}
	fmt.Printf("%s failed: %v (errno %d)\n", step, err, n)
	os.Exit(1)
}
