package main

import (
	"fmt"
	"io"
	"runtime/debug"

	bwruntime "github.com/bwpolicy/bwpolicy/runtime"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// version is set at build time with -ldflags "-X main.version=..."; else
// the module version from the build information ("(devel)" in a
// checkout).
var version = ""

func init() {
	register(&command{
		name:        "version",
		summary:     "print bwpolicy's version, the commit it was built from and the invocation format it writes",
		synopsis:    "bwpolicy version (or bwpolicy --version)",
		description: "Prints bwpolicy's version, the commit it was built from and the invocation\nformat it writes, in the shape of bwrun --version.",
		exits:       []exitCode{{exitOK, "printed"}, {exitUsage, "usage error"}},
		setup:       noFlags(runVersion),
	})
}

// runVersion prints one line: `bwpolicy VERSION (commit REV[, modified])
// (invocation format F)`, the same shape as `bwrun --version`, so a
// backend can check that the two binaries and the format agree.
func runVersion(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "bwpolicy version: takes no arguments (got %q)\n", args[0])
		return exitUsage
	}
	fmt.Fprintf(stdout, "bwpolicy %s%s (invocation format %s)\n", buildVersion(), buildCommit(), invocation.Format)
	return exitOK
}

func buildVersion() string { return bwruntime.ModuleVersion(version) }

// buildCommit is " (commit REV)" from the build's VCS stamp, with
// ", modified" for a dirty tree; "" when the build has none (go run, go
// test, -buildvcs=false).
func buildCommit() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		}
	}
	if rev == "" {
		return ""
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	return " (commit " + rev + modified + ")"
}
