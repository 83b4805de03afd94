package sandboxtest

import (
	"net"
	"os"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime/hostprobe"
)

// S3: every tmpfs is bounded and /dev is read-only. Under tmp_mb 8, 4 MiB
// fit in /tmp, /dev/shm and a tool build cache (~/.cache/pip, a tmpfs
// of its own) and 16 MiB do not; the top of HOME (cwd = HOME), of
// ~/.cache and a
// mask (a hide entry inside the writable working directory) are
// read-only, so a write there fails (EROFS) rather than vanishing;
// nothing can be created in /dev itself, while /dev/null, /dev/zero and
// a new pty keep working.
// Control: under tmp_mb 0 the same 16 MiB fit in /tmp and /dev/shm, so
// the bound (not the disk) refused them; and plain bwrap's --dev /dev is
// writable, so the remount (not bwrap) made it read-only.
func testTmpfsBounds(t *testing.T, f *fixture) {
	f.write(f.expand("{proj}/secrets/key"), f.marker+"\n")
	r := f.sandbox("cwd: {home}\ntmp_mb: 8\nhide: [\"~/proj/secrets/\"]\n", `
ok tmp_small 'head -c 4194304 /dev/zero > /tmp/a'
ok tmp_big 'head -c 16777216 /dev/zero > /tmp/b'
ok shm_small 'head -c 4194304 /dev/zero > /dev/shm/a'
ok shm_big 'head -c 16777216 /dev/zero > /dev/shm/b'
val mask_write 'head -c 4096 /dev/zero > {proj}/secrets/small'
val home_write 'head -c 4096 /dev/zero > {home}/a'
val dev_create 'echo x > /dev/planted'
ok dev_mkdir 'mkdir /dev/planted.d'
ok dev_null 'echo x > /dev/null'
val dev_zero 'head -c 3 /dev/zero | od -An -tx1'
val pty 'python3 -c "import os; m, s = os.openpty(); os.write(s, b\"pty-ok\\n\"); print(os.read(m, 64).decode().strip(), os.ttyname(s))"'
`, call{})
	f.expect(r, want{"tmp_small": "yes", "tmp_big": "no", "shm_small": "yes", "shm_big": "no",
		"mask_write": "~Read-only file system", "home_write": "~Read-only file system",
		"dev_create": "~Read-only file system", "dev_mkdir": "no", "dev_null": "yes", "dev_zero": "~00 00 00", "pty": "~pty-ok /dev/pts/"})

	f.mkdirAll(f.expand("{home}/.cache"))
	r = f.sandbox("tmp_mb: 8\n", `
ok cache_small 'head -c 4194304 /dev/zero > {home}/.cache/pip/a'
ok cache_big 'head -c 16777216 /dev/zero > {home}/.cache/pip/b'
val cache_top 'printf x > {home}/.cache/a'
`, call{})
	f.expect(r, want{"cache_small": "yes", "cache_big": "no", "cache_top": "~Read-only file system"})
	f.wantHostAbsent("{home}/.cache/pip/a")
	f.wantHostAbsent("{home}/.cache/a")

	r = f.sandbox("tmp_mb: 0\n", `
ok tmp_big 'head -c 16777216 /dev/zero > /tmp/b'
ok shm_big 'head -c 16777216 /dev/zero > /dev/shm/b'
`, call{})
	f.expect(r, want{"tmp_big": "yes", "shm_big": "yes"})

	bwrap, err := hostprobe.FindBwrap()
	if err != nil {
		t.Fatal(err)
	}
	c := f.exec(call{argv: []string{bwrap, "--unshare-all", "--ro-bind", "/", "/", "--dev", "/dev", "--",
		"/bin/sh", "-c", "echo x > /dev/planted && echo dev-writable"}})
	if !strings.Contains(c.stdout, "dev-writable") {
		t.Errorf("control: plain bwrap's /dev should be writable: %v", c)
	}
}

// H3: what Landlock's TCP rights do not see. With network.tcp_connect
// naming one port, an IPPROTO_MPTCP socket and a TCP Fast Open sendto
// (no connect(2)) would still reach another port of the host; seccomp
// refuses both (EPROTONOSUPPORT, EOPNOTSUPP) while a plain connect to
// the allowed port works. UDP is not covered by Landlock: it reaches the
// host until network.udp: false refuses the socket (EACCES). Control:
// without the allowlist (and with UDP), every probe connects.
func testLandlockBypasses(t *testing.T, f *fixture) {
	if abi, err := hostprobe.LandlockABI(); abi < 4 {
		t.Skipf("this kernel's Landlock ABI is %d (%v); the TCP allowlist needs 4", abi, err)
	}
	allowed, other := hostListener(t), hostListener(t)
	udp := hostUDPListener(t)
	port := allowed[strings.LastIndexByte(allowed, ':')+1:]
	rep := strings.NewReplacer("ALLOWED", allowed, "OTHER", other, "UDP", udp)
	probes := rep.Replace(`
val allowed '{bin}/sbxtool connect ALLOWED'
val other '{bin}/sbxtool connect OTHER'
val mptcp '{bin}/sbxtool mptcp OTHER'
val mptcp_allowed '{bin}/sbxtool mptcp ALLOWED'
val fastopen '{bin}/sbxtool fastopen OTHER'
val udp '{bin}/sbxtool udp UDP'
`)
	r := f.sandbox("profile: network\nmemory_mb: 0\nnetwork:\n  tcp_connect: ["+port+"]\n", probes, call{})
	f.expect(r, want{"allowed": "connected: HTTP/1.0 200 OK", "other": "~connect failed",
		"mptcp": "socket failed: protocol not supported (errno 93)", "mptcp_allowed": "socket failed: protocol not supported (errno 93)",
		"fastopen": "fastopen failed: operation not supported (errno 95)", "udp": "connected: udp-listener"})

	r = f.sandbox("profile: network\nmemory_mb: 0\nnetwork:\n  tcp_connect: ["+port+"]\n  udp: false\n", probes, call{})
	f.expect(r, want{"allowed": "connected: HTTP/1.0 200 OK", "udp": "socket failed: permission denied (errno 13)",
		"mptcp": "socket failed: protocol not supported (errno 93)"})

	// udp: false alone: TCP to any port as before, no UDP.
	r = f.sandbox("profile: network\nmemory_mb: 0\nnetwork:\n  udp: false\n", probes, call{})
	f.expect(r, want{"other": "connected: HTTP/1.0 200 OK", "udp": "socket failed: permission denied (errno 13)"})

	// Control: without the allowlist every bypass connects, so the
	// refusals above are the filter's, not the kernel's or the listener's.
	control := want{"other": "connected: HTTP/1.0 200 OK", "fastopen": "connected: HTTP/1.0 200 OK", "udp": "connected: udp-listener"}
	if b, _ := os.ReadFile("/proc/sys/net/mptcp/enabled"); strings.TrimSpace(string(b)) == "1" {
		control["mptcp"] = "connected: HTTP/1.0 200 OK"
	} else {
		t.Logf("MPTCP is disabled on this kernel (net.mptcp.enabled=%q): the control cannot connect over MPTCP; the refusal above is the filter's by its errno (93; the kernel answers 92 ENOPROTOOPT)", strings.TrimSpace(string(b)))
		control["mptcp"] = "~errno 92"
	}
	r = f.sandbox("profile: network\nmemory_mb: 0\n", probes, call{})
	f.expect(r, control)
}

// hostUDPListener answers each datagram on the host's 127.0.0.1 with
// "udp-listener". It returns the address.
func hostUDPListener(t *testing.T) string {
	t.Helper()
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	go func() {
		buf := make([]byte, 512)
		for {
			_, from, err := c.ReadFrom(buf)
			if err != nil {
				return
			}
			c.WriteTo([]byte("udp-listener\n"), from)
		}
	}()
	return c.LocalAddr().String()
}
