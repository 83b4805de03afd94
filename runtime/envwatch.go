package runtime

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/runtime/ledger"
	"github.com/bwpolicy/bwpolicy/runtime/scan"
	"github.com/bwpolicy/bwpolicy/runtime/watch"
)

// WatcherExe is the program started, detached, as an environment's
// watcher (WatcherExe --watch INVOCATION: ServeWatch) when none
// answers; bwrun sets it to itself. Empty: no watcher, every
// post-command scan walks the whole writable set.
var WatcherExe string

// NoWatchEnv, set to anything in bwrun's environment, makes bwrun
// neither ask nor start a watcher (the benchmarks' rows without one).
const NoWatchEnv = "BWPOLICY_NO_WATCH"

// WatcherIdle is how long a watcher lives without a request.
const WatcherIdle = 30 * time.Minute

// watcherRetry is how long after a watcher failed to start (the watch
// limit, a directory it cannot watch) no other is started: each would
// walk the tree to fail again.
const watcherRetry = 10 * time.Minute

// watcherStart bounds how long bwrun waits for a new watcher's watches.
const watcherStart = 60 * time.Second

// watchSocket and watchLock are the watcher's socket and lock beside the
// invocation at invPath.
func watchSocket(invPath string) string { return invPath + ledger.WatchSuffix + ".sock" }
func watchLock(invPath string) string   { return invPath + ledger.WatchSuffix + ".lock" }

// invDigest is the digest a watcher knows its invocation by.
func invDigest(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// Scan is the post-command scan of the environment (Stdio.Scan). With a
// watcher answering (runtime/watch) for the generation the last
// finished scan recorded, it scans what changed (scanchanges.go); else,
// or while the ledger is Unresolved, the whole writable set, the first
// time after starting a watcher whose watches are in place (so that no
// change falls between the two). End records the generation scanned and
// acknowledges it to the watcher.
func (e *EnvState) Scan(inv *invocation.Invocation, home string) GitScanReport {
	now := time.Now()
	if e.invPath == "" || WatcherExe == "" || os.Getenv(NoWatchEnv) != "" {
		return ScanGitIndexed(inv, home, now, e.Ledger, e.index())
	}
	state, _ := ledger.LoadWatchState(e.invPath + ledger.WatchSuffix)
	a, note := e.askWatcher(state)
	var prior GitScanReport
	if a != nil && !a.Full && state != nil && state.Token == a.Token && !e.Ledger.Unresolved {
		rep, next, ok := scan.Changes(inv, home, now, e.Ledger, a.Dirty, state)
		if ok {
			next.Token, next.Gen = a.Token, a.Gen
			e.watched = &watchedScan{answer: a, state: next, same: next.Same(state)}
			return rep
		}
		prior = rep
	}
	rep, next := scan.Whole(inv, home, now, e.Ledger, e.index())
	rep.SetAside = append(prior.SetAside, rep.SetAside...)
	rep.StalePaths = append(prior.StalePaths, rep.StalePaths...)
	rep.Warnings = append(prior.Warnings, rep.Warnings...)
	rep.Unresolved = rep.Unresolved || prior.Unresolved
	if note != "" {
		rep.Warnings = append(rep.Warnings, note)
	}
	if a != nil {
		next.Token, next.Gen = a.Token, a.Gen
		e.watched = &watchedScan{answer: a, state: next}
	}
	return rep
}

// watchedScan is a scan covering a watcher's generation, to record and
// acknowledge once its outcome is (EnvState.End).
type watchedScan struct {
	answer *watch.Answer
	state  ledger.WatchState
	// same: state is the record there already (the watcher answered
	// the generation recorded, with nothing dirty, and the scan kept the
	// same visits): nothing to save, nothing new to acknowledge.
	same bool
}

// askWatcher asks the environment's watcher what changed since state
// (nil: since nothing; a Full answer), starting one when none answers
// or the one there cannot answer (it exits). It returns nil when no
// watcher answers, with a note for the user when the watch limit is
// why.
func (e *EnvState) askWatcher(state *ledger.WatchState) (*watch.Answer, string) {
	tok, gen := "", uint64(0)
	if state != nil {
		tok, gen = state.Token, state.Gen
	}
	sock := watchSocket(e.invPath)
	a, err := watch.Since(sock, tok, gen, e.invHash)
	if err == nil {
		return a, ""
	}
	var na *watch.NoAnswer
	if !errors.Is(err, watch.ErrNoWatcher) && !errors.As(err, &na) {
		return nil, ""
	}
	failed := e.invPath + ledger.WatchSuffix + ".failed"
	if fi, err := os.Stat(failed); err == nil && time.Since(fi.ModTime()) < watcherRetry {
		return nil, "" // it failed a moment ago (said then, if for want of watches)
	}
	if why := startWatcher(e.invPath); why != "" {
		// Each start walks the tree to fail again: not before
		// watcherRetry.
		_ = os.WriteFile(failed, []byte(why+"\n"), 0o600)
		if strings.Contains(why, watch.ErrLimit.Error()) {
			return nil, "no change watcher for this environment: " + why + "; every command scans the whole writable set (H9) (tried again in " + watcherRetry.String() + ")"
		}
		return nil, ""
	}
	_ = os.Remove(failed)
	if a, err = watch.Since(sock, tok, gen, e.invHash); err != nil {
		return nil, ""
	}
	return a, ""
}

// startWatcher starts WatcherExe --watch invPath detached (its own
// session, no standard descriptors of ours) and waits until its watches
// are in place; it returns why it did not start, "" when it did.
func startWatcher(invPath string) string {
	r, w, err := os.Pipe()
	if err != nil {
		return err.Error()
	}
	defer r.Close()
	cmd := exec.Command(WatcherExe, "--watch", invPath)
	cmd.ExtraFiles = []*os.File{w} // descriptor 3: "ready TOKEN" or "fail REASON"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Dir = "/" // it holds no working directory busy
	err = cmd.Start()
	w.Close()
	if err != nil {
		return err.Error()
	}
	go func() { _ = cmd.Wait() }()
	_ = r.SetReadDeadline(time.Now().Add(watcherStart))
	line, err := bufio.NewReader(r).ReadString('\n')
	switch {
	case strings.HasPrefix(line, "ready "):
		return ""
	case strings.HasPrefix(line, "fail "):
		return strings.TrimSpace(strings.TrimPrefix(line, "fail "))
	case err != nil:
		return "the watcher did not start: " + err.Error()
	}
	return "the watcher did not start"
}

// recordWatched records the generation the finished scan covered beside
// the ledger, then acknowledges it to the watcher (its dirty sets up to
// it go): in that order, so that a bwrun killed in between leaves a
// record the watcher still answers for.
func (e *EnvState) recordWatched() {
	w := e.watched
	if w == nil || w.same {
		return
	}
	if err := w.state.Save(e.invPath + ledger.WatchSuffix); err != nil {
		return
	}
	_ = watch.Ack(watchSocket(e.invPath), w.answer.Token, w.answer.Gen)
}

// ServeWatch is bwrun --watch INVOCATION: the environment's watcher
// (runtime/watch) until the invocation changes or goes away, or it is
// idle for WatcherIdle, or the ledger beside it goes. ready, when set, gets its start's outcome.
func ServeWatch(invPath string, ready *os.File) error {
	inv, data, err := LoadTrustedData(invPath)
	if err != nil {
		if ready != nil {
			fmt.Fprintf(ready, "fail %v\n", err)
			ready.Close()
		}
		return err
	}
	var at0 syscall.Stat_t
	if err := syscall.Stat(invPath, &at0); err != nil {
		return err
	}
	_, ledErr := os.Lstat(invPath + ledger.Suffix)
	roots, enter := scan.WatchTree(inv)
	return watch.Serve(watch.Config{
		Roots:   roots,
		Enter:   enter,
		Socket:  watchSocket(invPath),
		Lock:    watchLock(invPath),
		InvHash: invDigest(data),
		Alive: func() bool {
			var at syscall.Stat_t
			if ledErr == nil {
				if _, err := os.Lstat(invPath + ledger.Suffix); err != nil {
					return false // the ledger went: so does what it judged by
				}
			}
			return syscall.Stat(invPath, &at) == nil && at.Dev == at0.Dev && at.Ino == at0.Ino &&
				at.Mtim == at0.Mtim && at.Size == at0.Size
		},
		Idle:  WatcherIdle,
		Ready: ready,
	})
}
