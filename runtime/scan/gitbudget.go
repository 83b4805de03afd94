package scan

import (
	"fmt"
	"strings"
	"time"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// MaxGitScanTime is the post-command scan's time budget (H9). When it
// runs out the scan stops and its outcome is "incomplete": the
// invocation is stale, nothing is trusted (the ledger is not touched),
// and the message names the directory of the writable set that used the
// most of the budget. A variable so that tests can lower it; nothing
// changes it at run time. The recording of a ledger has no time budget
// (it runs once, before any command, bounded by entries).
var MaxGitScanTime = 3 * time.Second

// scanClock returns the clock one scan's budget is counted by: the wall
// clock (time.Now). Only a bwrun built for the sandbox tests (the build
// tag bwpolicy_tickbudget, gitbudget_ticks.go) counts otherwise, so that
// a real run can be made to exhaust its budget at a known place.
var scanClock = func() func() time.Time { return time.Now }

// budget is the scan's account of its time (gitScan.tick).
type budget struct {
	deadline time.Time
	last     time.Time
	lastTop  string
	spent    map[string]time.Duration
	// clock is time.Now but in tests.
	clock func() time.Time
	// over is set once the budget ran out: the scan stops.
	over bool
}

// tick accounts the time since the last tick to the top-level directory
// of the writable set it was spent in, and reports whether the budget
// has run out (the caller stops: the scan is then incomplete, stale).
func (s *gitScan) tick(dir string) bool {
	if s.record || s.over {
		return s.over
	}
	now := s.clock()
	if s.spent == nil {
		s.spent = map[string]time.Duration{}
	} else if s.lastTop != "" {
		s.spent[s.lastTop] += now.Sub(s.last)
	}
	s.last, s.lastTop = now, s.topOf(dir)
	if now.Before(s.deadline) {
		return false
	}
	s.over = true
	top, most := s.lastTop, time.Duration(0)
	for d, t := range s.spent {
		if t > most {
			top, most = d, t
		}
	}
	s.stale(top, fmt.Sprintf("the git scan ran out of its time budget (%v) (H9): %s used the most of it (%v); the scan stopped at %s, so what it did not reach was not checked for code a later host git would run and the run is incomplete: nothing is trusted, the next command needs a recompile and scans again. Move large trees out of the writable directories, or review them before running git there", MaxGitScanTime, top, most.Round(time.Millisecond), dir))
	return true
}

// topOf is dir's directory directly below its writable root (the root
// itself for the root): a prefix of dir, not a copy (it runs once a
// directory).
func (s *gitScan) topOf(dir string) string {
	for _, r := range s.roots {
		if invocation.Within(dir, r) {
			rest := strings.TrimPrefix(strings.TrimPrefix(dir, r), "/")
			if rest == "" {
				return r
			}
			if i := strings.IndexByte(rest, '/'); i >= 0 {
				return dir[:len(dir)-len(rest)+i]
			}
			return dir
		}
	}
	return dir
}
