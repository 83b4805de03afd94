package facts

import (
	"path"
	"strings"

	"github.com/bwpolicy/bwpolicy/runtime"
)

// maxGitConfig bounds how much of a git configuration file is read.
const maxGitConfig = 256 << 10

// gitHooksPath returns the value of core.hooksPath in a git
// configuration file's content (the last one set), and whether it is set,
// read with runtime.ParseGitConfig: the parser of git's own grammar that
// bwrun's post-command scan uses, so compile time and run time cannot
// disagree on what git sees. A file git would reject still yields the
// entries before the bad line (git dies on it, so nothing runs; reading
// them errs on the side of protecting). A key without "=" has no path
// (git refuses it). Includes are followed by includeTargets, not here.
func gitHooksPath(content []byte) (string, bool) {
	entries, _ := runtime.ParseGitConfig(content)
	value, set := "", false
	for _, e := range entries {
		if e.Key == "core.hookspath" && !e.Bool {
			value, set = e.Value, true
		}
	}
	return value, set
}

// hooksPathFor returns where git runs hooks from for the repository whose
// worktree is root, per the repository's own configuration, else the
// user's global one; "" when neither sets core.hooksPath. A relative
// value is relative to the worktree (hooks run there); "~/" is the home.
func (g *gatherer) hooksPathFor(root, home string) string {
	configs := []string{path.Join(root, ".git", "config"), path.Join(home, ".gitconfig"), path.Join(home, ".config", "git", "config")}
	for _, c := range configs {
		pc := g.path(c) // a dotfiles repository often links ~/.gitconfig
		if pc.Kind != "file" {
			continue
		}
		content, err := g.fs.ReadFile(pc.Real, maxGitConfig)
		if err != nil {
			continue
		}
		v, ok := gitHooksPath(content)
		if !ok {
			continue
		}
		switch {
		case v == "":
			return ""
		case strings.HasPrefix(v, "~/"):
			return path.Join(home, v[2:])
		case path.IsAbs(v):
			return path.Clean(v)
		default:
			return path.Join(root, v)
		}
	}
	return ""
}
