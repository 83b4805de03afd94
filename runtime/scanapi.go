package runtime

import (
	"time"

	"github.com/bwpolicy/bwpolicy/hazard/git"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/runtime/ledger"
	"github.com/bwpolicy/bwpolicy/runtime/scan"
)

// The post-command scan (H9) lives in runtime/scan; these names keep
// its callers' spelling.

// GitScanReport is scan.GitScanReport.
type GitScanReport = scan.GitScanReport

// SetAside is scan.SetAside.
type SetAside = scan.SetAside

// ScanGit is scan.ScanGit.
func ScanGit(inv *invocation.Invocation, home string, now time.Time, led *ledger.Ledger) GitScanReport {
	return scan.ScanGit(inv, home, now, led)
}

// ScanGitIndexed is scan.ScanGitIndexed.
func ScanGitIndexed(inv *invocation.Invocation, home string, now time.Time, led *ledger.Ledger, idx *ledger.Index) GitScanReport {
	return scan.ScanGitIndexed(inv, home, now, led, idx)
}

// RecordTrusted is scan.RecordTrusted.
func RecordTrusted(led *ledger.Ledger, p string) error { return scan.RecordTrusted(led, p) }

// ListDir is scan.ListDir.
func ListDir(dir string, buf []byte, de *git.DirEntries) error { return scan.ListDir(dir, buf, de) }
