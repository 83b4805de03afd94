package ledger

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// WatchSuffix names what bwrun keeps for the environment's watcher
// (runtime/watch): INVOCATION + WatchSuffix.
const WatchSuffix = ".watch"

const watchHeader = "bwpolicy-watch 1\n"

// maxWatchFile bounds a watch state read back.
const maxWatchFile = 64 << 20

// WatchState is what the last finished scan of an environment left for
// the next one to scan only what changed since (runtime/watch): the
// watcher's token and the generation the scan covered, the entries the
// walk counted, and Visits, the reduced listings of the directories
// whose visit does something (a repository, a bare or staged one,
// symlinks): they are visited again after every command, whether they
// changed or not, since what they lead to may lie anywhere.
type WatchState struct {
	Token   string
	Gen     uint64
	Entries int
	// Changes is true when the scan was one of what changed (the
	// watcher answered), false for a whole one.
	Changes bool
	Visits  *Index
	// raw is the file LoadWatchState read (Same).
	raw []byte
}

// scanKind is how the header names WatchState.Changes.
func scanKind(changes bool) string {
	if changes {
		return "changes"
	}
	return "whole"
}

// encode is the state as Save writes it.
func (w *WatchState) encode() []byte {
	b := []byte(watchHeader + w.Token + " " + strconv.FormatUint(w.Gen, 10) + " " + strconv.Itoa(w.Entries) + " " + scanKind(w.Changes) + "\n")
	return w.Visits.appendTo(b)
}

// Save writes the state to p atomically, mode 0600.
func (w *WatchState) Save(p string) error {
	return writeAtomic(p, w.encode())
}

// Same reports whether w is, byte for byte, the state old was loaded
// from (LoadWatchState): saving w would write the file that is there.
func (w *WatchState) Same(old *WatchState) bool {
	return old != nil && old.raw != nil && bytes.Equal(w.encode(), old.raw)
}

// LoadWatchState reads the state at p, the caller's own file as Load
// requires of a ledger.
func LoadWatchState(p string) (*WatchState, error) {
	b, err := readOwn(p, maxWatchFile)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(b, []byte(watchHeader)) {
		return nil, fmt.Errorf("watch state %s: %w", p, errIndex)
	}
	raw := b
	b = b[len(watchHeader):]
	nl := bytes.IndexByte(b, '\n')
	if nl < 0 {
		return nil, fmt.Errorf("watch state %s: %w", p, errIndex)
	}
	f := strings.Fields(string(b[:nl]))
	if len(f) != 4 || f[3] != scanKind(true) && f[3] != scanKind(false) {
		return nil, fmt.Errorf("watch state %s: %w", p, errIndex)
	}
	w := &WatchState{Token: f[0], Changes: f[3] == scanKind(true), raw: raw}
	if w.Gen, err = strconv.ParseUint(f[1], 10, 64); err == nil {
		w.Entries, err = strconv.Atoi(f[2])
	}
	if err != nil {
		return nil, fmt.Errorf("watch state %s: %w", p, errIndex)
	}
	if w.Visits, err = parseIndex(b[nl+1:]); err != nil {
		return nil, fmt.Errorf("watch state %s: %w", p, err)
	}
	return w, nil
}
