package main

import (
	"fmt"
	"io"
	"os"

	bwruntime "github.com/bwpolicy/bwpolicy/runtime"
)

// finishPending finishes, before compile -o FILE replaces FILE, the
// post-command scans that killed bwruns of FILE left pending (their
// journal entries beside it, H9): a recompile must not come between a
// command and the scan of what it left. It returns a non-zero exit
// status when a pending scan could not be finished; one that finished
// and set something aside is reported and the compile goes on (this
// compile is the recompile the set-aside asks for).
func finishPending(out string, stderr io.Writer) int {
	led, err := bwruntime.LoadLedger(out)
	if err == nil {
		err = bwruntime.FinishPending(out, os.Getenv("HOME"), led)
	}
	switch e := err.(type) {
	case nil:
		return exitOK
	case *bwruntime.StaleError:
		fmt.Fprintf(stderr, "bwpolicy compile: warning: %v\n", e.Mismatches[0].Note)
		return exitOK
	default:
		fmt.Fprintf(stderr, "bwpolicy compile: %v\n", err)
		return exitUsage
	}
}
