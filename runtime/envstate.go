package runtime

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/runtime/ledger"
	"github.com/bwpolicy/bwpolicy/runtime/scan"
	"golang.org/x/sys/unix"
)

// EnvState is what bwrun keeps beside an invocation for H9 while one
// command runs: the environment's ledger and this run's journal entry
// ("scan pending"). BeginEnv makes it before the command starts; End
// clears the journal once the post-command scan has finished and its
// outcome is recorded.
type EnvState struct {
	// Ledger is what the post-command scan judges by (Stdio.Ledger).
	Ledger *ledger.Ledger
	// Warnings are for the caller to show (the recording's bounds).
	Warnings []string
	invPath  string
	journal  *ledger.Journal
	// idx is the scan's directory index (index()): a cache kept beside
	// the ledger, loaded when a walk needs it, saved by End.
	idx *ledger.Index
	// invHash is the invocation's digest (invDigest); watched the scan
	// that covered a watcher's generation (Scan), recorded by End.
	invHash string
	watched *watchedScan
}

// index is the environment's directory index, loaded the first time.
func (e *EnvState) index() *ledger.Index {
	if e.idx == nil && e.invPath != "" {
		e.idx = loadIndex(e.invPath)
	}
	return e.idx
}

// BeginEnv prepares the run of the invocation at invPath (its bytes
// data, decoded as inv), in this order, before anything of the command
// runs:
//
//  1. A scan a killed bwrun of this environment left pending (its
//     journal entry, ledger.FindPending) is finished now, with the
//     invocation that run used; what it finds marks the invocation stale
//     (MarkStale) and BeginEnv returns the *StaleError: nothing runs.
//  2. The ledger beside the invocation (INVOCATION + ledger.Suffix) is
//     loaded; writable directories it does not cover yet are recorded
//     (RecordLedger) and it is saved.
//  3. This run's journal entry is written (the invocation's bytes),
//     locked for as long as bwrun lives.
//
// A killed bwrun so leaves its entry behind, and the next BeginEnv (or
// FinishPending, which `bwpolicy compile` runs) scans before anything
// else: there is no path from "killed" to "trusted".
func BeginEnv(invPath string, inv *invocation.Invocation, data []byte, home string) (*EnvState, error) {
	if unix.Access(filepath.Dir(invPath), unix.W_OK) != nil {
		// An invocation in a directory the caller cannot write (one
		// root installed for everyone): no ledger or journal can be kept
		// beside it, so nothing is the user's: the scan judges every
		// code-bearing file in the writable set the command's.
		return &EnvState{Warnings: []string{fmt.Sprintf("the directory of %s is not yours to write, so no ledger of what you trust is kept beside it (H9): every git hook, code key and start-up file in the writable directories is set aside after the command; keep your own invocation (`bwpolicy compile -o FILE`) to keep yours", invPath)}}, nil
	}
	led, err := LoadLedger(invPath)
	if err != nil {
		return nil, err
	}
	if err := FinishPending(invPath, home, led); err != nil {
		return nil, err
	}
	if err := CheckStaleMark(invPath); err != nil {
		return nil, err
	}
	e := &EnvState{Ledger: led, invPath: invPath, invHash: invDigest(data)}
	if _, warns := scan.RecordLedgerIndexed(inv, home, led, e.index); led.Changed {
		e.Warnings = warns
		if err := led.Save(invPath + ledger.Suffix); err != nil {
			return nil, fmt.Errorf("cannot save the ledger %s: %v", invPath+ledger.Suffix, err)
		}
	}
	if e.journal, err = ledger.Begin(invPath, data); err != nil {
		return nil, err
	}
	return e, nil
}

// End records the outcome of the post-command scan rep: a stale one
// marks the invocation stale (MarkStale); then the journal entry goes.
// When the mark cannot be written the entry stays, so the next bwrun
// scans again before it runs anything.
func (e *EnvState) End(rep GitScanReport) error {
	if e.invPath == "" {
		return nil // no ledger, no journal: BeginEnv
	}
	if rep.Stale() {
		if err := MarkStale(e.invPath, rep); err != nil {
			e.journal.Leave() // left in place for the next run to finish
			e.journal = nil
			return fmt.Errorf("cannot mark the invocation stale (%v): the scan stays pending, the next command rescans first", err)
		}
	}
	if err := keepUnresolved(e.invPath, e.Ledger, rep); err != nil {
		e.journal.Leave()
		e.journal = nil
		return fmt.Errorf("%v: the scan stays pending, the next command rescans first", err)
	}
	if e.idx != nil && e.idx.Changed {
		// A cache: one that cannot be saved costs the next scan a
		// listing of every directory, nothing else.
		_ = e.idx.Save(e.invPath + ledger.IndexSuffix)
	}
	e.recordWatched()
	return e.journal.Done()
}

// keepUnresolved keeps in the ledger beside the invocation at invPath
// whether the scan rep, which judged by led (as loaded before it),
// left something unjudged (ledger.Ledger.Unresolved). Only a scan that
// began Unresolved judged the places an earlier command may have left
// unjudged (gitScan.earlierWritable), so only such a scan, resolved,
// clears the mark. The ledger is read again first: a `bwpolicy trust`
// or another bwrun may have changed it meanwhile.
func keepUnresolved(invPath string, led *ledger.Ledger, rep GitScanReport) error {
	if led == nil || !rep.Unresolved && !led.Unresolved {
		return nil
	}
	p := invPath + ledger.Suffix
	now, err := ledger.Load(p)
	if errors.Is(err, fs.ErrNotExist) {
		now = led
	} else if err != nil {
		return fmt.Errorf("cannot read the ledger %s to keep the scan's outcome: %v", p, err)
	}
	now.SetUnresolved(rep.Unresolved || now.Unresolved && !led.Unresolved)
	if !now.Changed {
		return nil
	}
	if err := now.Save(p); err != nil {
		return fmt.Errorf("cannot keep the scan's outcome in the ledger %s: %v", p, err)
	}
	led.Unresolved = now.Unresolved
	return nil
}

// loadIndex loads the directory index beside the invocation at
// invPath; a new one when there is none or it does not load (it is a
// cache).
func loadIndex(invPath string) *ledger.Index {
	x, err := ledger.LoadIndex(invPath + ledger.IndexSuffix)
	if err != nil {
		return ledger.NewIndex()
	}
	return x
}

// LoadLedger loads the ledger beside the invocation at invPath; a new,
// empty one when there is none (BeginEnv then records the writable set
// before the first command). One that is not the caller's own regular
// file, or that does not parse, is an error: nothing runs until the user
// removes it (the next command then records the writable set afresh).
func LoadLedger(invPath string) (*ledger.Ledger, error) {
	p := invPath + ledger.Suffix
	led, err := ledger.Load(p)
	if errors.Is(err, fs.ErrNotExist) {
		return ledger.New(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("%v (H9): the record of what you trust in this environment is unusable; remove it to record the writable directories afresh", err)
	}
	return led, nil
}

// FinishPending finishes the scans that dead bwruns of the invocation
// at invPath left pending (their journal entries), each with the
// invocation that run used and the ledger led. A scan that finds
// something marks the invocation stale; its error then is the
// *StaleError. An entry that cannot be scanned (it does not decode)
// stays, and the error says so: nothing runs until it is dealt with.
func FinishPending(invPath, home string, led *ledger.Ledger) error {
	ps, err := ledger.FindPending(invPath)
	if err != nil {
		return fmt.Errorf("%v (H9): a scan may be pending; nothing runs", err)
	}
	var stale []string
	var firstErr error
	for _, p := range ps {
		inv, err := invocation.Decode(p.Invocation)
		if err != nil {
			p.Release()
			if firstErr == nil {
				firstErr = fmt.Errorf("the scan journal %s (left by a bwrun that did not finish) does not decode (%v) (H9): check the writable directories for code a later host program would run, then remove it", p.Path, err)
			}
			continue
		}
		rep := ScanGit(inv, home, time.Now(), led)
		if err := keepUnresolved(invPath, led, rep); err != nil {
			p.Release()
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if rep.Stale() {
			if err := MarkStale(invPath, rep); err != nil {
				p.Release()
				if firstErr == nil {
					firstErr = fmt.Errorf("cannot mark %s stale after finishing a pending scan: %v", invPath, err)
				}
				continue
			}
			stale = append(stale, rep.StalePaths...)
		}
		if err := p.Done(); err != nil && firstErr == nil {
			firstErr = fmt.Errorf("cannot remove the scan journal %s: %v", p.Path, err)
		}
	}
	if firstErr != nil {
		return firstErr
	}
	if len(stale) > 0 {
		return &StaleError{Mismatches: []Mismatch{{Precondition: invocation.Precondition{Path: invPath + StaleMarkSuffix, Why: invocation.ReasonProtectedEntries},
			Note: fmt.Sprintf("%s (H9): a bwpolicy run that did not finish its scan left what a later host program would run; the scan finished now and set aside or reported: %s",
				invPath+StaleMarkSuffix, strings.Join(scan.FirstN(stale, 8), ", "))}}}
	}
	return nil
}
