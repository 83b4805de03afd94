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

// pathDirsIn returns the directories on PATH (absolute entries, each
// resolved, unrecorded: a link outside the writable directory leading
// into it counts; each once) that lie strictly inside the writable
// directory root.
func (g *gatherer) pathDirsIn(h *Host, root string) []string {
	var out []string
	seen := map[string]bool{}
	for _, real := range g.pathDirs(h) {
		if seen[real] || real == root || !Within(real, root) {
			continue
		}
		seen[real] = true
		out = append(out, real)
	}
	return out
}

// pathDirs returns the absolute entries of PATH, resolved (unrecorded).
func (g *gatherer) pathDirs(h *Host) []string {
	if h == nil {
		return nil
	}
	var out []string
	for _, d := range strings.Split(h.Env["PATH"], ":") {
		if !path.IsAbs(d) {
			continue // "" and relative entries follow the current directory: not a place
		}
		d = path.Clean(d)
		if r, _, err := Resolve(g.fs, d); err == nil {
			d = r
		}
		out = append(out, d)
	}
	return out
}
