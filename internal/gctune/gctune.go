// Package gctune keeps the bwpolicy binary's garbage collector off
// while its packages are initialised. The JSON Schema, CUE and OPA
// packages allocate megabytes in their init functions, where Go's
// default target (a first collection at 4 MB) runs collections that
// free next to nothing, on the cold compile's critical path. Imported
// (for its init only) by cmd/bwpolicy; it depends on the standard
// library alone, so Go initialises it before those packages. main then
// sets the collector's target for the work itself (Target), unless
// GOGC or GOMEMLIMIT is set.
package gctune

import (
	"os"
	"runtime/debug"
)

// Target is the GC target main sets once the packages are initialised:
// a compilation's heap peaks near 30 MB, so collecting from Go's 4 MB
// starting goal only costs time; a `bwpolicy check` of many files still
// collects as it goes (with the collector left off it ran slower, at
// three times the memory: BENCHMARKS.md's history, "Tenth session").
const Target = 400

// tuned says whether init took the collector over (neither GOGC nor
// GOMEMLIMIT set).
var tuned = os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == ""

func init() {
	if tuned {
		debug.SetGCPercent(-1)
	}
}

// Start sets the collector's target for the command (Target), after the
// packages' initialisation; nothing when GOGC or GOMEMLIMIT is set.
func Start() {
	if tuned {
		debug.SetGCPercent(Target)
	}
}
