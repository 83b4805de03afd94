package landlock

import (
	"errors"
	"fmt"
	"net"
	"os/exec"
	goruntime "runtime"
	"testing"

	"github.com/bwpolicy/bwpolicy/internal/testnet"
	"github.com/bwpolicy/bwpolicy/runtime/hostprobe"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"golang.org/x/sys/unix"
)

// onRestrictedThread runs probe on a fresh OS thread restricted by l (as
// Run restricts the thread that forks bwrap) and returns its error. The
// thread is never unlocked, so it ends with the goroutine.
func onRestrictedThread(t *testing.T, l *invocation.Landlock, probe func() error) error {
	t.Helper()
	type result struct{ setup, probe error }
	c := make(chan result, 1)
	go func() {
		goruntime.LockOSThread()
		var warnings []string
		if err := Apply(l, func(s string) { warnings = append(warnings, s) }); err != nil || len(warnings) > 0 {
			c <- result{setup: fmt.Errorf("Apply: %v %q", err, warnings)}
			return
		}
		c <- result{probe: probe()}
	}()
	r := <-c
	if r.setup != nil {
		t.Fatal(r.setup)
	}
	return r.probe
}

func needLandlockABI(t *testing.T, want int) {
	t.Helper()
	abi, err := hostprobe.LandlockABI()
	if abi < want {
		// A kernel property, not a missing package: nothing to install.
		t.Skipf("this kernel's Landlock ABI is %d (%v); the test needs %d", abi, err, want)
	}
}

// TestLandlockScopesSignals isolates the signal scoping of H3 (in a real
// sandbox the pid namespace already hides host processes): a thread
// restricted with ScopeSignal cannot signal a process outside its
// domain, an unrestricted one can.
func TestLandlockScopesSignals(t *testing.T) {
	needLandlockABI(t, ABIScope)
	sleeper := exec.Command("sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleeper.Process.Kill(); sleeper.Wait() })
	pid := sleeper.Process.Pid
	probe := func() error { return unix.Kill(pid, 0) }

	if err := onRestrictedThread(t, &invocation.Landlock{MinABI: 6, ScopeAbstractUnix: true}, probe); err != nil {
		t.Fatalf("control (abstract sockets scoped, signals not): kill(%d, 0) = %v, want nil", pid, err)
	}
	if err := onRestrictedThread(t, &invocation.Landlock{MinABI: 6, ScopeSignal: true}, probe); !errors.Is(err, unix.EPERM) {
		t.Fatalf("signals scoped: kill(%d, 0) = %v, want EPERM", pid, err)
	}
	// The test process itself (outside the domain) still can.
	if err := probe(); err != nil {
		t.Fatalf("unrestricted kill(%d, 0) = %v", pid, err)
	}
}

// TestLandlockScopesAbstractSockets: a restricted thread cannot connect
// to an abstract Unix socket created outside its domain.
func TestLandlockScopesAbstractSockets(t *testing.T) {
	needLandlockABI(t, ABIScope)
	name := fmt.Sprintf("@bwpolicy-landlock-test-%d", unix.Getpid())
	testnet.ListenAndClose(t, "unix", name)
	probe := func() error {
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		return unix.Connect(fd, &unix.SockaddrUnix{Name: name})
	}
	if err := onRestrictedThread(t, &invocation.Landlock{MinABI: 6, ScopeSignal: true}, probe); err != nil {
		t.Fatalf("control (signals scoped, sockets not): connect(%s) = %v", name, err)
	}
	if err := onRestrictedThread(t, &invocation.Landlock{MinABI: 6, ScopeAbstractUnix: true}, probe); !errors.Is(err, unix.EPERM) {
		t.Fatalf("abstract sockets scoped: connect(%s) = %v, want EPERM", name, err)
	}
}

// TestLandlockTCPConnectAllowlist: with a connect allowlist, a
// restricted thread reaches the allowed port and is refused (EACCES) on
// another, both listening on the loopback.
func TestLandlockTCPConnectAllowlist(t *testing.T) {
	needLandlockABI(t, ABINet)
	port := func() uint16 {
		return uint16(testnet.ListenAndClose(t, "tcp4", "127.0.0.1:0").Addr().(*net.TCPAddr).Port)
	}
	allowed, other := port(), port()
	connect := func(port uint16) func() error {
		return func() error {
			fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				return err
			}
			defer unix.Close(fd)
			return unix.Connect(fd, &unix.SockaddrInet4{Port: int(port), Addr: [4]byte{127, 0, 0, 1}})
		}
	}
	l := &invocation.Landlock{MinABI: 4, TCPConnect: []uint16{allowed}}
	if err := onRestrictedThread(t, l, connect(allowed)); err != nil {
		t.Fatalf("allowed port %d: %v", allowed, err)
	}
	if err := onRestrictedThread(t, l, connect(other)); !errors.Is(err, unix.EACCES) {
		t.Fatalf("port %d outside the allowlist: %v, want EACCES", other, err)
	}
	if err := connect(other)(); err != nil {
		t.Fatalf("unrestricted connect to %d: %v", other, err)
	}
}
