package facts

import (
	"sort"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// nestedIncludes extends out with what the configuration files of the
// nested repositories and submodules (the ".git/config" entries of
// out[from:]: config, config.worktree, a gitdir target's config) read in
// turn, as for the top repository: the files they include (include.path,
// includeIf.*.path whatever the condition, relative to the including
// file; includeTargets). The directories their core.hooksPath names are
// repoHooksPaths'.
func (g *gatherer) nestedIncludes(out []Protected, from int, home string, seen map[string]bool) []Protected {
	end := len(out)
	for i := from; i < end; i++ {
		if o := out[i]; o.Name == ".git/config" && o.Kind == invocation.KindFile && !o.Symlink {
			out = append(out, g.includeTargets(o, home, seen, 0)...)
		}
	}
	return out
}

// unwalked are the directories inside the writable directory root that
// the search for repositories does not enter, as bwrun's scan does not:
// what a command cannot write there — the hidden directories (masked)
// and the protected directories bound read-only (found is what
// protectedEntries listed so far).
func unwalked(root string, hidden []Hidden, found []Protected) []string {
	var out []string
	for _, h := range hidden {
		if h.Kind == invocation.KindDir && Within(h.Path, root) && h.Path != root {
			out = append(out, h.Path)
		}
	}
	for _, p := range found {
		if p.Root == root && p.Kind == invocation.KindDir && !p.Symlink && !p.Allowed && p.Name != ".git/hooks" {
			out = append(out, p.Path)
		}
	}
	sort.Strings(out)
	return out
}
