package scan

import (
	"os"
	"slices"
	"strings"
	"time"

	"github.com/bwpolicy/bwpolicy/hazard/git"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/runtime/ledger"
	"golang.org/x/sys/unix"
)

// This file is where the post-command scan decides whose a file is: the
// user's when the environment's ledger (runtime/ledger) has it as it is
// now, the command's otherwise, whatever its times. A file copied or
// unpacked with old times, a directory renamed into place, a pointer
// written before a recompile: none of them is in the ledger as it is, so
// each is judged as the command's. Recording (RecordLedger) runs the
// same scan with the judgement replaced by a record: the ledger holds
// exactly the places the scan asks about.

// changed reports whether what is at p is not the user's: not in the
// ledger as it is now. Without a ledger, or while the scan looks at what
// a pointer the command wrote leads to (gitScan.distrust), everything
// counts as changed. Recording, it records p and reports false.
func (s *gitScan) changed(p string) bool {
	if s.record {
		s.note(p)
		return false
	}
	if s.led == nil || s.distrust > 0 {
		return true
	}
	return !s.led.Trusts(p)
}

// changedConfig is changed for a git configuration file: the ledger
// holds it by its code-bearing entries (git.ConfigDigest), so that an
// edit of any other key (the host's git config user.name, a remote, a
// branch's upstream) leaves it the user's, while a code key or include
// added, removed or changed makes it the command's. One git.ParseConfig
// cannot read is held by its whole content. Recording, it records p so.
func (s *gitScan) changedConfig(p string) bool {
	if s.record {
		if !s.led.Has(p) {
			if err := s.led.RecordDigest(p, git.ConfigDigest); err != nil {
				s.rep.Warnings = append(s.rep.Warnings, "the ledger could not record "+p+": "+err.Error()+"; it will be judged as a command's")
			}
		}
		return false
	}
	if s.led == nil || s.distrust > 0 {
		return true
	}
	return !s.led.TrustsDigest(p, git.ConfigDigest)
}

// grown reports whether the directory p may hold entries a command
// added: not the directory the ledger recorded there, or one whose
// entries changed since (ledger.Ledger.Untouched). Past a bound on
// entries, such a directory is set aside whole rather than listed: a
// command cannot make the scan's work grow. Recording, it records p.
func (s *gitScan) grown(p string) bool {
	if s.record {
		s.note(p)
		return false
	}
	return s.led == nil || s.distrust > 0 || !s.led.Untouched(p)
}

// created reports whether the directory p was made after the ledger
// recorded the root it lies in: its birth time (statx; on a filesystem
// that keeps none, its ctime) is not older than the recording less
// ledgerSlack. It decides only where the scan spends its bounded work
// (past a bound, what a command made is set aside whole rather than
// walked): no unprivileged program sets a birth time, and every file
// below a directory walked is still judged by the ledger. Without a
// ledger, or for a place no root covers, everything is created.
// Recording, nothing is.
func (s *gitScan) created(p string) bool {
	if s.record {
		return false
	}
	if s.led == nil {
		return true
	}
	at, ok := s.led.RecordedAt(p)
	if !ok {
		return true
	}
	var st unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, p, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BTIME|unix.STATX_CTIME, &st); err != nil {
		return true
	}
	t := st.Ctime
	if st.Mask&unix.STATX_BTIME != 0 {
		t = st.Btime
	}
	return t.Sec*int64(time.Second)+int64(t.Nsec) >= at-int64(ledgerSlack)
}

// ledgerSlack: the kernel stamps files from a coarse clock that may lag
// the one the recording read by a tick.
const ledgerSlack = 100 * time.Millisecond

// note records p in the ledger, unless it is recorded already: a
// recording never replaces what the ledger holds (only `bwpolicy trust`
// does), so recording a new root cannot make a changed file trusted.
func (s *gitScan) note(p string) {
	if s.led.Has(p) {
		return
	}
	if err := s.led.Record(p); err != nil {
		s.rep.Warnings = append(s.rep.Warnings, "the ledger could not record "+p+": "+err.Error()+"; it will be judged as a command's")
	}
}

// distrustIf, when cond holds, makes changed report true until the
// returned function runs (gitScan.distrust): what a pointer the command
// wrote leads to, or a directory renamed into place holds, is judged as
// the command's whatever the ledger says of its files. Use as
// defer s.distrustIf(cond)().
func (s *gitScan) distrustIf(cond bool) (undo func()) {
	if !cond {
		return func() {}
	}
	s.distrust++
	return func() { s.distrust-- }
}

// inRoots reports whether p lies in one of the scan's roots.
func (s *gitScan) inRoots(p string) bool {
	for _, r := range s.roots {
		if invocation.Within(p, r) {
			return true
		}
	}
	return false
}

// RecordLedgerIndexed records in led what the post-command scan would
// judge in inv's writable set, for the writable directories led does not
// cover yet (ledger.Ledger.Roots): it runs before the first command that
// can write them, so what is there is the user's. Everything below such
// a root is recorded, read-only binds included (a later compile may
// leave them writable); what led holds already is kept as it is. idx
// loads the environment's directory index, called only when some root
// is recorded; it may return nil. It returns the roots recorded and the
// recording's warnings (a bound reached: what lies past it is not
// recorded and will be judged as a command's).
func RecordLedgerIndexed(inv *invocation.Invocation, home string, led *ledger.Ledger, idx func() *ledger.Index) (roots []string, warnings []string) {
	return recordLedger(inv, home, led, idx)
}

// recordLedger is RecordLedger keeping what it lists in the index idx
// returns (nil: none), asked for only when some root is recorded.

func recordLedger(inv *invocation.Invocation, home string, led *ledger.Ledger, idx func() *ledger.Index) (roots []string, warnings []string) {
	s := newGitScan(inv, home, time.Now(), led)
	s.record = true
	var fresh []string
	for _, r := range s.roots {
		if !led.Covers(r) {
			fresh = append(fresh, r)
		}
	}
	if len(fresh) == 0 {
		return nil, nil
	}
	s.roots, s.index = fresh, idx()
	at := time.Now().UnixNano()
	defer s.siblings.close()
	s.run(inv)
	for _, r := range fresh {
		led.AddRoot(r, at)
	}
	for _, w := range s.rep.Warnings {
		warnings = append(warnings, strings.Replace(w, "the git scan", "the ledger's recording", 1))
	}
	return fresh, warnings
}

// RecordTrusted records p in led for `bwpolicy trust` as the scan's
// recording would hold it: a regular file git reads as a configuration
// with a code-bearing entry by those entries (git.ConfigDigest:
// changedConfig judges it so, and the user's later edits of other keys
// leave it trusted), anything else (hooks, pointers, directories, links,
// a file git cannot parse) by Record.
func RecordTrusted(led *ledger.Ledger, p string) error {
	if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
		if b, err := git.ReadSmall(p); err == nil {
			if entries, err := git.ParseConfig(b); err == nil && slices.ContainsFunc(entries, git.CodeKey) {
				return led.RecordDigest(p, git.ConfigDigest)
			}
		}
	}
	return led.Record(p)
}
