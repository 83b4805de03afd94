package facts

import (
	"path"
	"strings"

	"github.com/bwpolicy/bwpolicy/hazard/git"
)

// repoWorktree is a git directory (or a ".git" file leading to one) and the
// worktree git runs its hooks in (top; "" when the compile cannot tell).
// A relative core.hooksPath is relative to that directory: git runs
// hooks from the top of the worktree (githooks(5)), which is
// core.worktree when the repository's configuration sets it (relative
// to the git directory: git's setup.c), else the directory holding the
// ".git" entry git found, else, for a bare repository, the git
// directory itself.
type repoWorktree struct{ dir, top string }

// configValues returns the values key (lower-case section and name, as
// git.ConfigEntry.Key) takes in the git configuration file cfg
// and in the files it includes (include.path, includeIf.*.path
// whatever the condition, relative to the including file, "~/" the
// home; git's depth of 10), in the order git reads them. A symlinked
// file is followed, as git does. What it reads is not recorded (no
// precondition): the files that matter are bound read-only.
func (g *gatherer) configValues(cfg, key, home string, depth int) []string {
	if depth > 10 {
		return nil
	}
	real, _, err := Resolve(g.fs, cfg) // not recorded: no precondition
	if err != nil {
		return nil
	}
	content, err := g.fs.ReadFile(real, maxGitConfig)
	if err != nil {
		return nil
	}
	entries, _ := git.ParseConfig(content)
	var out []string
	for _, e := range entries {
		if e.Key == key && !e.Bool {
			out = append(out, e.Value)
		}
		if t, ok := includeTarget(e, cfg, home); ok {
			out = append(out, g.configValues(t, key, home, depth+1)...)
		}
	}
	return out
}

// worktreesOf returns the worktrees core.worktree names in git directory
// gd's configuration (config and config.worktree; relative to gd).
func (g *gatherer) worktreesOf(gd, home string) []string {
	var out []string
	for _, c := range []string{"config", "config.worktree"} {
		for _, v := range g.configValues(path.Join(gd, c), "core.worktree", home, 0) {
			if v == "" {
				continue
			}
			if strings.HasPrefix(v, "~/") {
				v = path.Join(home, v[2:])
			} else if !path.IsAbs(v) {
				v = path.Join(gd, v)
			}
			out = append(out, path.Clean(v))
		}
	}
	return out
}

// repoHooksPaths returns every directory a core.hooksPath may name for
// the repositories (absolute; a relative value joined to each worktree
// the repository is known to run hooks in), from each git directory's
// config and config.worktree and the files they include, and from the
// user's global configuration (it applies to every repository that sets
// none: protecting every candidate is the safe side). unresolved names
// the configuration files that set a relative value for a git directory
// whose worktree the compile cannot tell (a submodule's git directory
// with no core.worktree and no checkout found pointing to it).
func (g *gatherer) repoHooksPaths(repos []repoWorktree, home string) (dirs, unresolved []string) {
	tops := map[string][]string{}
	var order []string
	for _, r := range repos {
		if _, ok := tops[r.dir]; !ok {
			order = append(order, r.dir)
		}
		if r.top != "" {
			tops[r.dir] = append(tops[r.dir], r.top)
		} else if tops[r.dir] == nil {
			tops[r.dir] = []string{}
		}
	}
	var relative []string // the global configuration's relative values
	for _, c := range []string{path.Join(home, ".gitconfig"), path.Join(home, ".config", "git", "config")} {
		for _, v := range g.configValues(c, "core.hookspath", home, 0) {
			if v != "" && !path.IsAbs(v) && !strings.HasPrefix(v, "~") {
				relative = append(relative, v)
			} else if x, ok := gitUserPath(v, home); ok && strings.HasPrefix(v, "~") && path.IsAbs(x) {
				dirs = append(dirs, path.Clean(x))
			}
		}
	}
	for _, gd := range order {
		rel := relative
		for _, c := range []string{path.Join(gd, "config"), path.Join(gd, "config.worktree")} {
			for _, v := range g.configValues(c, "core.hookspath", home, 0) {
				switch {
				case v == "":
				case strings.HasPrefix(v, "~"):
					if x, ok := gitUserPath(v, home); ok && path.IsAbs(x) {
						dirs = append(dirs, path.Clean(x))
					}
				case path.IsAbs(v):
					dirs = append(dirs, path.Clean(v))
				case len(tops[gd]) == 0:
					unresolved = append(unresolved, c)
				default:
					rel = append(rel[:len(rel):len(rel)], v)
				}
			}
		}
		for _, top := range tops[gd] {
			for _, v := range rel {
				dirs = append(dirs, path.Join(top, v))
			}
		}
	}
	return dirs, unresolved
}
