package facts

// This file follows the variables that move the home's start-up files
// elsewhere (H9): with XDG_CONFIG_HOME=~/dots/xdg, systemd's user units
// and fish's configuration are read from ~/dots/xdg, with ZDOTDIR zsh's
// rc files from there, with GIT_CONFIG_GLOBAL git's global configuration
// from that file. Where such a place lies in a writable directory, its
// start-up names are protected there as they are below the home.

import (
	"path"
	"strings"

	"github.com/bwpolicy/bwpolicy/runtime"
)

// StartupVars are the variables besides runtime.MovedDirs that move a
// start-up file: ZDOTDIR (zsh's rc files) and GIT_CONFIG_GLOBAL (git's
// global configuration, a file). FromEnvironment reads them.
var StartupVars = []string{"ZDOTDIR", "GIT_CONFIG_GLOBAL"}

// zshNames are the start-up names zsh reads from $ZDOTDIR.
var zshNames = []string{".zshenv", ".zprofile", ".zshrc", ".zlogin", ".zlogout"}

// relocatedStartup returns the (name, path) pairs of ProtectedNames that
// the environment moves out of the home: below a directory of
// runtime.MovedDirs (XDG_CONFIG_HOME for .config/..., XDG_DATA_HOME for
// .local/share/...), zsh's names below ZDOTDIR, and .gitconfig at
// GIT_CONFIG_GLOBAL. Relative values are ignored (they follow the
// current directory of whoever reads them).
func relocatedStartup(h *Host) [][2]string {
	if h == nil {
		return nil
	}
	var out [][2]string
	for _, md := range runtime.MovedDirs {
		dir := h.Env[md.Name]
		if !path.IsAbs(dir) {
			continue
		}
		for _, name := range ProtectedNames {
			if rest, ok := strings.CutPrefix(name, md.Default+"/"); ok {
				out = append(out, [2]string{name, path.Join(dir, rest)})
			}
		}
	}
	if z := h.Env["ZDOTDIR"]; path.IsAbs(z) {
		for _, name := range zshNames {
			out = append(out, [2]string{name, path.Join(z, name)})
		}
	}
	if g := h.Env["GIT_CONFIG_GLOBAL"]; path.IsAbs(g) {
		out = append(out, [2]string{".gitconfig", path.Clean(g)})
	}
	return out
}
