package facts

import (
	"os/user"
	"path"

	"github.com/bwpolicy/bwpolicy/hazard/git"
)

// maxGitConfig bounds how much of a git configuration file is read.
const maxGitConfig = 256 << 10

// gitHooksPath returns the value of core.hooksPath in a git
// configuration file's content (the last one set), and whether it is set,
// read with git.ParseConfig: the parser of git's own grammar that
// bwrun's post-command scan uses, so compile time and run time cannot
// disagree on what git sees. A file git would reject still yields the
// entries before the bad line (git dies on it, so nothing runs; reading
// them errs on the side of protecting). A key without "=" has no path
// (git refuses it). Includes are followed by includeTargets, not here.
func gitHooksPath(content []byte) (string, bool) {
	entries, _ := git.ParseConfig(content)
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
// value is relative to the worktree (hooks run there); "~/" is the home,
// "~NAME/" NAME's (gitUserPath).
func (g *gatherer) hooksPathFor(root, home string) string {
	configs := []string{path.Join(root, ".git", "config"), path.Join(home, ".gitconfig"), path.Join(home, ".config", "git", "config")}
	for _, c := range configs {
		if hp, ok := g.hooksPathIn(c, root, home); ok {
			return hp
		}
	}
	return ""
}

// hooksPathIn reads core.hooksPath from the configuration file cfg (a
// symlinked one followed: a dotfiles repository often links
// ~/.gitconfig) and resolves it for the worktree root; ok is false when
// the file does not set it. An empty value resolves to "".
func (g *gatherer) hooksPathIn(cfg, root, home string) (string, bool) {
	pc := g.path(cfg)
	if pc.Kind != "file" {
		return "", false
	}
	content, err := g.fs.ReadFile(pc.Real, maxGitConfig)
	if err != nil {
		return "", false
	}
	v, ok := gitHooksPath(content)
	switch {
	case !ok:
		return "", false
	case v == "":
		return "", true
	}
	if v, ok = gitUserPath(v, home); !ok {
		return "", true // git dies: "failed to expand user dir"
	}
	if path.IsAbs(v) {
		return path.Clean(v), true
	}
	return path.Join(root, v), true
}

// includeTarget returns the file an include.path or includeIf.*.path
// entry of the configuration file cfg names, as git resolves it:
// relative to cfg's directory, "~/" the home, "~NAME/" NAME's
// (gitUserPath); ok is false for any other entry, and for a "~NAME" no
// user has (git stops reading the configuration there: "could not
// expand include path").
func includeTarget(e git.ConfigEntry, cfg, home string) (string, bool) {
	t, ok := git.IncludePath(e)
	if !ok {
		return "", false
	}
	if t, ok = gitUserPath(t, home); !ok {
		return "", false
	}
	if !path.IsAbs(t) {
		t = path.Join(path.Dir(cfg), t)
	}
	return path.Clean(t), true
}

// lookupHome returns the home directory of the user name, as git's
// getpwnam finds it (os/user: the system's name services); a variable
// so that tests can set the answer.
var lookupHome = func(name string) (string, bool) {
	u, err := user.Lookup(name)
	if err != nil || u.HomeDir == "" {
		return "", false
	}
	return u.HomeDir, true
}

// gitUserPath expands a leading "~" of a path-valued git setting as git
// does (git.UserPath, with lookupHome).
func gitUserPath(v, home string) (string, bool) {
	return git.UserPath(v, home, lookupHome)
}
