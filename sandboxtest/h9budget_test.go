package sandboxtest

import (
	"fmt"
	"go/build"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// tickBudgetTool builds, once, bwrun-tickbudget: bwrun built with -tags
// bwpolicy_tickbudget, whose post-command scan counts its time budget
// in looks (one millisecond a directory, 200 in all: runtime's
// gitbudget_ticks.go) instead of wall time, so that a real run exhausts
// it at a known place whatever the machine's load.
var tickBudgetTool = sync.OnceValue(func() error {
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(build.Default.GOROOT, "bin", "go")
	}
	out, err := exec.Command(goBin, "build", "-tags", "bwpolicy_tickbudget", "-o", tool("bwrun-tickbudget"), "github.com/bwpolicy/bwpolicy/cmd/bwrun").CombinedOutput()
	if err != nil {
		return fmt.Errorf("go build bwrun-tickbudget: %v\n%s", err, out)
	}
	return os.Chmod(tool("bwrun-tickbudget"), 0o755)
})

// H9 (issue 26 §3): what bwrun does when its post-command scan runs out
// of its budget. A command makes big/ with 400 directories and a new
// repository deeper than all of them (deep/x/r, its fsmonitor runs the
// marker); run by a bwrun whose budget is 200 looks, the scan stops
// inside big: the run is incomplete. bwrun says so and names big as
// the directory that used the budget, sets nothing aside past where it
// stopped, leaves the ledger as it was (nothing trusted) and marks the
// invocation stale: the next command is refused until a recompile. The
// recompile does not make the plant the user's either: the next
// command's scan (the real budget, which this tree does not exhaust: the
// control that the budget is what stopped the first scan) sets it aside
// although the recompile binds deep/x/r's config read-only (the ledger
// is marked unresolved until a scan judged everything), and the user's
// host git in deep/x/r then runs nothing. Control: the
// same plant written by bwrap alone (no scan) runs at host git.
func testLedgerScanBudget(t *testing.T, f *fixture) {
	if err := tickBudgetTool(); err != nil {
		t.Fatal(err)
	}
	e := newLedgerEnv(t, f, "ledger-budget")
	f.wantCode(e.bwrun("true"), 0) // the ledger is recorded
	ledgerBefore := f.hostRead(e.inv + ".ledger")
	plant := `mkdir big && (cd big && seq -w 400 | xargs mkdir) && git init -q deep/x/r && ` + fsm + ` >> deep/x/r/.git/config`
	r := f.exec(call{argv: []string{tool("bwrun-tickbudget"), e.inv, "--", "/bin/sh", "-c", gitEnvSetup + e.x(plant)}, dir: e.p})
	f.wantCode(r, 0)
	f.wantStderr(r, "ran out of its time budget", e.p+"/big used the most", "incomplete")
	if got := f.hostRead(e.p + "/deep/x/r/.git/config"); got == "<absent>" {
		t.Errorf("the scan set aside what lies past where its budget ran out (it did not reach it): %s", r.stderr)
	}
	// Nothing trusted: the ledger's entries are as they were; it now says
	// a scan left something unjudged (so the next scans judge what the
	// recompile binds read-only too).
	ledgerAfter := f.hostRead(e.inv + ".ledger")
	if strings.Replace(ledgerAfter, "\nunresolved\n", "\n", 1) != ledgerBefore || ledgerAfter == ledgerBefore {
		t.Errorf("an incomplete scan changed the ledger's entries, or did not mark it unresolved:\n%s\nbefore:\n%s", ledgerAfter, ledgerBefore)
	}
	if j := e.pending(); len(j) > 0 {
		t.Errorf("an incomplete scan that bwrun reported left its journal entry %v", j)
	}
	// Stale: the next command is refused, and does not run.
	r = e.bwrun("touch {p}.second-ran")
	f.wantCode(r, 125)
	f.wantStderr(r, "H9", "recompile")
	f.wantHostAbsent(e.p + ".second-ran")
	// Nothing was trusted: after the recompile the next scan, with the
	// real budget, finishes and sets the plant aside.
	e.compile()
	r = e.bwrun("true")
	f.wantCode(r, 0)
	f.wantStderr(r, "set aside as", e.p+"/deep/x/r/.git/config")
	if strings.Contains(r.stderr, "ran out of its time budget") {
		t.Errorf("the real budget ran out on 400 directories: %s", r.stderr)
	}
	if e.hostGitRan("/deep/x/r") {
		t.Errorf("host git ran a plant an incomplete scan left, after a recompile")
	}
	// That scan judged the whole writable set, resolved: the mark goes.
	if strings.Contains(f.hostRead(e.inv+".ledger"), "\nunresolved\n") {
		t.Errorf("a resolved scan of the whole writable set left the ledger unresolved")
	}
	// Control: the plant written without the scan runs at host git.
	e.compile()
	f.wantCode(e.bwrap(`git init -q deep/x/c && `+fsm+` >> deep/x/c/.git/config`), 0)
	if !e.hostGitRan("/deep/x/c") {
		t.Errorf("control: host git did not run the fsmonitor written without the scan")
	}
}
