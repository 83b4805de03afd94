// Package gctune sets the bwpolicy binary's garbage collector before the
// packages that allocate most at start-up are initialised. A cold
// `bwpolicy compile` lives for tens of milliseconds and its heap peaks
// near 30 MB, but the JSON Schema, CUE and OPA packages allocate
// megabytes in their init functions, where Go's default target (a first
// collection at 4 MB) runs several collections that free next to
// nothing. With GOGC and GOMEMLIMIT unset, collection is off and a soft
// memory limit (MemoryLimit) takes its place: a long `bwpolicy check`
// of many files is still collected, once its heap nears the limit.
// Imported (for its init only) by cmd/bwpolicy; it depends on the
// standard library alone, so Go initialises it before those packages.
package gctune

import (
	"os"
	"runtime/debug"
)

// MemoryLimit is the soft memory limit that stands in for the
// collector's target when GOGC and GOMEMLIMIT are unset.
const MemoryLimit = 256 << 20

func init() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(-1)
		debug.SetMemoryLimit(MemoryLimit)
	}
}
