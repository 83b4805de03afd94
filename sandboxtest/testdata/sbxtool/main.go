// Command sbxtool is the sandbox test suite's helper: small, dependable
// probes that the suite runs inside (and next to) a sandbox. It lives in a
// testdata directory, so `go test ./...` and `go vet ./...` ignore it; the
// suite builds it with `go build`.
//
//	sbxtool connect HOST:PORT   TCP connect (2 s timeout), read one line;
//	                            prints "connected: LINE" (exit 0) or
//	                            "connect failed: ERR" (exit 1)
//	sbxtool connect-unix PATH   connect to a Unix stream socket (@NAME:
//	                            abstract), read one line; prints
//	                            "connected: LINE" or "connect failed: ERR"
//	sbxtool mptcp|fastopen|udp HOST:PORT
//	                            an IPPROTO_MPTCP connect, a TCP Fast Open
//	                            sendto, or a UDP datagram, then read one
//	                            line; prints "connected: LINE" or
//	                            "STEP failed: ERR (errno N)" (exit 1)
//	sbxtool loopback            listen on 127.0.0.1:0 and connect to it
//	                            from this process; prints "loopback ok"
//	sbxtool mksock PATH         create a Unix socket file at PATH and
//	                            exit, leaving the file in place
//	sbxtool asuser UID GID -- CMD [ARG...]
//	                            drop supplementary groups, set the real,
//	                            effective and saved gid and uid, exec CMD
//	sbxtool serve-call SOCKET [--kill-at FILE] -- BWRUN-ARGS...
//	                            one request to a bwrun --serve (servecall.go)
//
// A Go program needs about 800 MiB of address space to start, so a
// sandbox that runs sbxtool sets memory_mb: 0; the memory-limit tests use
// perl, which starts in a few MiB.
package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	switch os.Args[1] {
	case "connect":
		if len(os.Args) != 3 {
			usage()
		}
		dial("tcp", os.Args[2])
	case "connect-unix":
		if len(os.Args) != 3 {
			usage()
		}
		dial("unix", os.Args[2])
	case "mptcp", "fastopen", "udp":
		if len(os.Args) != 3 {
			usage()
		}
		sockProbe(os.Args[1], os.Args[2])
	case "loopback":
		loopback()
	case "mksock":
		if len(os.Args) != 3 {
			usage()
		}
		mksock(os.Args[2])
	case "serve-call":
		serveCall(os.Args[2:])
	case "asuser":
		if len(os.Args) < 6 || os.Args[4] != "--" {
			usage()
		}
		asuser(os.Args[2], os.Args[3], os.Args[5:])
	default:
		usage()
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: sbxtool connect HOST:PORT | connect-unix PATH | mptcp|fastopen|udp HOST:PORT | loopback | mksock PATH | asuser UID GID -- CMD [ARG...] | serve-call SOCKET [--kill-at FILE] -- BWRUN-ARGS...")
	os.Exit(2)
}

func dial(network, addr string) {
	c, err := net.DialTimeout(network, addr, 2*time.Second)
	if err != nil {
		fmt.Printf("connect failed: %v\n", err)
		os.Exit(1)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil && line == "" {
		fmt.Printf("connected, read failed: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("connected: %s\n", strings.TrimRight(line, "\r\n"))
}

func loopback() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Printf("listen failed: %v\n", err)
		os.Exit(1)
	}
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		fmt.Fprintln(c, "hello from inside")
		c.Close()
	}()
	c, err := net.DialTimeout("tcp", l.Addr().String(), 2*time.Second)
	if err != nil {
		fmt.Printf("loopback connect failed: %v\n", err)
		os.Exit(1)
	}
	c.SetDeadline(time.Now().Add(2 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		fmt.Printf("loopback read failed: %v\n", err)
		os.Exit(1)
	}
	if line != "hello from inside\n" {
		fmt.Printf("loopback read %q\n", line)
		os.Exit(1)
	}
	fmt.Println("loopback ok")
}

func mksock(path string) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		fmt.Fprintf(os.Stderr, "sbxtool mksock: %v\n", err)
		os.Exit(1)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		fmt.Fprintf(os.Stderr, "sbxtool mksock %s: %v\n", path, err)
		os.Exit(1)
	}
	// Exit without unlinking: the socket file stays.
}

func asuser(uidS, gidS string, argv []string) {
	uid, err1 := strconv.Atoi(uidS)
	gid, err2 := strconv.Atoi(gidS)
	if err1 != nil || err2 != nil {
		usage()
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "sbxtool asuser: %v\n", err)
		os.Exit(127)
	}
	if err := syscall.Setgroups(nil); err != nil {
		fail("setgroups", err)
	}
	if err := syscall.Setresgid(gid, gid, gid); err != nil {
		fail("setresgid", err)
	}
	if err := syscall.Setresuid(uid, uid, uid); err != nil {
		fail("setresuid", err)
	}
	fail("exec "+path, syscall.Exec(path, argv, os.Environ()))
}

func fail(what string, err error) {
	fmt.Fprintf(os.Stderr, "sbxtool asuser: %s: %v\n", what, err)
	os.Exit(126)
}
