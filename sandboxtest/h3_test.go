package sandboxtest

import (
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime/hostprobe"
)

// H3: under the network profile (host network shared), Landlock keeps
// the command to the TCP ports of network.tcp_connect (the allowed host
// listener answers, another one on the same host does not), and scopes
// abstract Unix sockets away (the host's X11-style socket is unreachable
// although the network namespace is the host's). Needs Landlock ABI 6;
// on an older kernel the test says why it cannot run.
func testLandlockNetwork(t *testing.T, f *fixture) {
	if abi, err := hostprobe.LandlockABI(); abi < 6 {
		t.Skipf("this kernel's Landlock ABI is %d (%v); H3 needs 6 to be tested end to end", abi, err)
	}
	allowed, other := hostListener(t), hostListener(t)
	abstract := hostAbstractListener(t, f.tag)
	port := allowed[strings.LastIndexByte(allowed, ':')+1:]
	r := f.sandbox("profile: network\nmemory_mb: 0\nnetwork:\n  tcp_connect: ["+port+"]\n",
		strings.NewReplacer("ALLOWED", allowed, "OTHER", other, "ABSTRACT", abstract).Replace(`
val allowed '{bin}/sbxtool connect ALLOWED'
val other '{bin}/sbxtool connect OTHER'
val host_abstract '{bin}/sbxtool connect-unix ABSTRACT'
`), call{})
	f.expect(r, want{"allowed": "connected: HTTP/1.0 200 OK", "other": "~connect failed", "host_abstract": "~connect failed"})
	// Without the allowlist the other listener answers: the refusal above
	// is Landlock's, not the listener's.
	r = f.sandbox("profile: network\nmemory_mb: 0\n", strings.NewReplacer("OTHER", other).Replace(`
val other '{bin}/sbxtool connect OTHER'
`), call{})
	f.expect(r, want{"other": "connected: HTTP/1.0 200 OK"})
}
