package facts

// This file keeps the directories on PATH read-only where they lie in a
// writable directory (H9): a program a command plants there (a `git`,
// an `ls`) runs in the user's next host shell that searches PATH. The
// home's usual ones (~/bin, ~/.local/bin, ~/.cargo/bin, ~/go/bin) are
// start-up names already; this covers whatever else PATH names, as the
// home layout reads PATH to bind its directories back.

import (
	"path"
	"strings"
)

// AllowPath is the protect.allow name that leaves the directories on
// PATH writable inside the writable set (with a warning).
const AllowPath = "PATH"

// pathDirs returns the absolute entries of PATH, resolved (unrecorded).
func (g *gatherer) pathDirs(h *Host) []string {
	if h == nil {
		return nil
	}
	var out []string
	for _, d := range absList(h.Getenv("PATH")) {
		out = append(out, g.resolvedUnrecorded(d))
	}
	return out
}

// absList returns the absolute entries of a colon-separated list,
// cleaned: "" and relative entries follow the current directory of
// whoever reads them, not a place.
func absList(v string) []string {
	var out []string
	for _, d := range strings.Split(v, ":") {
		if path.IsAbs(d) {
			out = append(out, path.Clean(d))
		}
	}
	return out
}

// resolvedUnrecorded returns p (absolute) with its symlinks resolved,
// looked at without recording (a link outside the writable set that
// leads into it counts, and no precondition is added); p cleaned when
// it cannot be resolved.
func (g *gatherer) resolvedUnrecorded(p string) string {
	p = path.Clean(p)
	if r, _, err := Resolve(g.fs, p); err == nil {
		return r
	}
	return p
}
