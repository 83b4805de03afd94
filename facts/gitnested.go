package facts

import (
	"path"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// nestedIncludes extends out with what the configuration files of the
// nested repositories and submodules (the ".git/config" entries of
// out[from:]: config, config.worktree, a gitdir target's config) read in
// turn, as for the top repository: the files they include (include.path,
// includeIf.*.path whatever the condition, relative to the including
// file; includeTargets), and returns the directories their
// core.hooksPath names (absolute), for the caller to protect. A relative core.hooksPath is relative to the
// repository's worktree: it is resolved for X/.git/config (worktree X);
// for a submodule's or a gitdir target's configuration the worktree is
// not known here, and such a value is left to bwrun's post-command scan.
func (g *gatherer) nestedIncludes(out []Protected, from int, home string, seen map[string]bool) (_ []Protected, hooksPaths []string) {
	end := len(out)
	for i := from; i < end; i++ {
		o := out[i]
		if o.Name != ".git/config" || o.Kind != invocation.KindFile || o.Symlink {
			continue
		}
		top := ""
		if gd := path.Dir(o.Path); path.Base(gd) == ".git" {
			top = path.Dir(gd)
		}
		inc := g.includeTargets(o, home, seen, 0)
		out = append(out, inc...)
		for _, c := range append([]Protected{o}, inc...) {
			if c.Symlink {
				continue
			}
			hp, ok := g.hooksPathIn(c.Path, top, home)
			if ok && path.IsAbs(hp) {
				hooksPaths = append(hooksPaths, hp)
			}
		}
	}
	return out, hooksPaths
}
