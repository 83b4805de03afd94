//go:build bwpolicy_tickbudget

package scan

import "time"

// A bwrun built with -tags bwpolicy_tickbudget (sandboxtest builds one;
// no release is built so) counts the post-command scan's time budget in
// looks, not in wall time: each look at a directory or git directory
// (gitScan.tick) advances the scan's clock by one millisecond, and the
// budget is tickBudget milliseconds. A real scan of a known tree then
// runs out of its budget at a known place whatever the machine's load,
// and the sandbox test sees the outcome bwrun gives past it (the run
// incomplete, stale, nothing trusted, the directory named). Nothing a
// sandboxed command can reach selects this: it is a property of the
// binary.

// tickBudget is the budget of a bwpolicy_tickbudget build, in looks.
const tickBudget = 200

func init() {
	MaxGitScanTime = tickBudget * time.Millisecond
	scanClock = func() func() time.Time {
		t := time.Unix(0, 0)
		return func() time.Time {
			t = t.Add(time.Millisecond)
			return t
		}
	}
}
