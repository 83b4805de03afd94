package sandboxtest

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// S1: RLIMIT_NOFILE is set (soft = hard) on the sandbox, from the host's
// file table shared out among max_procs + 2 processes: a command sees
// the invocation's value as its hard limit and cannot raise it, so the
// sandbox's processes together cannot fill the host's file table
// (ENFILE for every user). Control: bwrap alone with the same arguments
// leaves the inherited hard limit, larger.
func testNoFileLimit(t *testing.T, f *fixture) {
	inv, _ := f.compile("", call{})
	b, err := os.ReadFile(inv)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Rlimits struct {
			NoFile uint64 `json:"nofile"`
		} `json:"rlimits"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || doc.Rlimits.NoFile == 0 {
		t.Fatalf("the invocation sets no RLIMIT_NOFILE: %v", err)
	}
	want := doc.Rlimits.NoFile
	// The runtime clamps to the inherited hard limit.
	hr := f.exec(call{argv: []string{"/bin/sh", "-c", "ulimit -Hn"}})
	inherited := uint64(1) << 62
	if out := strings.TrimSpace(hr.stdout); out != "unlimited" {
		if inherited, err = strconv.ParseUint(out, 10, 64); err != nil {
			t.Fatalf("the inherited hard limit: %v", hr)
		}
	}
	exp := min(want, inherited)
	script := fmt.Sprintf(`val hard 'ulimit -Hn'
val soft 'ulimit -Sn'
ok raise 'ulimit -Sn %d'
`, exp+1)
	r := f.bwrun(inv, script, call{})
	got := probes(r.stdout)
	if got["hard"] != fmt.Sprint(exp) || got["soft"] != fmt.Sprint(exp) || got["raise"] != "no" {
		t.Errorf("inside: hard %s, soft %s, raise to %d: %s; want %d, %d, no: %v", got["hard"], got["soft"], exp+1, got["raise"], exp, exp, r)
	}
	if inherited <= want {
		t.Logf("the inherited hard limit (%d) is not above the invocation's %d: the runtime keeps it, and bwrap alone would too", inherited, want)
		return
	}
	r = f.exec(call{argv: append(append([]string{bwrapPath}, rawArgs(t, inv)...), "--", "/bin/sh", "-c", "ulimit -Hn")})
	if out := strings.TrimSpace(r.stdout); out != fmt.Sprint(inherited) && !(out == "unlimited" && inherited == uint64(1)<<62) {
		t.Errorf("control: bwrap alone gives a hard limit of %q, not the inherited %d: %v", out, inherited, r)
	}
}
