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

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// AllowPath is the protect.allow name that leaves the directories on
// PATH writable inside the writable set (with a warning).
const AllowPath = "PATH"

// pathDirsIn returns the directories on PATH (absolute entries, cleaned,
// each once, resolved) that lie strictly inside the writable directory
// root, written so and resolved so (an entry reaching the root only
// through a symlink elsewhere is not looked at).
func (g *gatherer) pathDirsIn(h *Host, root string) []string {
	if h == nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, d := range strings.Split(h.Env["PATH"], ":") {
		if !path.IsAbs(d) {
			continue // "" and relative entries follow the current directory: not a place
		}
		d = path.Clean(d)
		if d == root || !Within(d, root) {
			continue // looked at only inside the root: every other lookup would be a precondition
		}
		real := d
		if pp := g.path(d); !invocation.Missing(pp.Kind) {
			real = pp.Real
		}
		if seen[real] || real == root || !Within(real, root) {
			continue
		}
		seen[real] = true
		out = append(out, real)
	}
	return out
}
