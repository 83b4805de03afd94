package runtime

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// StaleMarkSuffix names the file bwrun leaves next to an invocation
// (INVOCATION + StaleMarkSuffix) when a command made it stale (H9: the
// post-command git scan set something aside or reached a bound). Until
// the invocation is compiled again (its modification time is then later
// than the mark's), CheckStaleMark refuses it.
const StaleMarkSuffix = ".stale"

// MarkStale records rep next to the invocation at invPath.
func MarkStale(invPath string, rep GitScanReport) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(invPath+StaleMarkSuffix, append(b, '\n'), 0o600)
}

// CheckStaleMark returns a *StaleError when the invocation at invPath
// carries a stale mark newer than itself, naming the paths the mark
// lists; nil when there is none or the invocation was compiled since.
func CheckStaleMark(invPath string) error {
	mark, err := os.Lstat(invPath + StaleMarkSuffix)
	if err != nil {
		return nil
	}
	inv, err := os.Stat(invPath)
	if err != nil || inv.ModTime().After(mark.ModTime()) {
		return nil
	}
	var rep GitScanReport
	if f, err := os.Open(invPath + StaleMarkSuffix); err == nil {
		json.NewDecoder(io.LimitReader(f, 1<<20)).Decode(&rep)
		f.Close()
	}
	paths := rep.StalePaths
	if len(paths) > 8 {
		paths = append(paths[:8:8], fmt.Sprintf("and %d more", len(rep.StalePaths)-8))
	}
	return &StaleError{Mismatches: []Mismatch{{Precondition: invocation.Precondition{Path: invPath + StaleMarkSuffix, Why: invocation.ReasonProtectedEntries},
		Note: fmt.Sprintf("%s (H9): an earlier command left what a later host git would run, set aside or not checked: %s",
			invPath+StaleMarkSuffix, strings.Join(paths, ", "))}}}
}
