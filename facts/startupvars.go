package facts

// This file follows the variables that move the home's start-up files
// elsewhere (H9): with XDG_CONFIG_HOME=~/dots/xdg, systemd's user units
// and fish's configuration are read from ~/dots/xdg, with ZDOTDIR zsh's
// rc files from there, with GIT_CONFIG_GLOBAL git's global configuration
// from that file. Where such a place lies in a writable directory, its
// start-up names are protected there as they are below the home.

import (
	"fmt"
	"path"
	"strings"

	"github.com/bwpolicy/bwpolicy/hazard/secrets"
	"github.com/bwpolicy/bwpolicy/hazard/startup"
)

// StartupVars are the variables besides secrets.MovedDirs that move a
// start-up file or name one: ZDOTDIR (zsh's rc files),
// startup.FileVars (BASH_ENV, GIT_CONFIG_SYSTEM, EDITOR, …) and
// startup.CodeDirVars (LD_LIBRARY_PATH, PYTHONPATH, …).
// FromEnvironment reads them.
var StartupVars = append(append([]string{"ZDOTDIR"}, startup.FileVars...), startup.CodeDirVars...)

// zshNames are the start-up names zsh reads from $ZDOTDIR.
var zshNames = []string{".zshenv", ".zprofile", ".zshrc", ".zlogin", ".zlogout"}

// envStartup returns the (name, path) pairs of the places the
// environment makes host programs run from, wherever they lie:
// ProtectedNames below a directory of secrets.MovedDirs
// (XDG_CONFIG_HOME for .config/..., XDG_DATA_HOME for .local/share/...),
// zsh's names below ZDOTDIR, the files of startup.FileVars (named
// by their variable), python's start-up modules in the PYTHONPATH
// directories, and the PATH directories themselves (AllowPath: what a
// command plants there runs in the user's next host shell). Each place
// is resolved, unrecorded (a link outside the writable directory that
// leads into it counts); relative values are ignored.
func (g *gatherer) envStartup(h *Host) [][2]string {
	if h == nil {
		return nil
	}
	var out [][2]string
	for _, md := range secrets.MovedDirs {
		for _, dir := range absList(h.Env[md.Name]) {
			dir = g.resolvedUnrecorded(dir)
			for _, name := range ProtectedNames {
				if rest, ok := strings.CutPrefix(name, md.Default+"/"); ok {
					out = append(out, [2]string{name, path.Join(dir, rest)})
				}
			}
		}
	}
	for _, z := range absList(h.Env["ZDOTDIR"]) {
		z = g.resolvedUnrecorded(z)
		for _, name := range zshNames {
			out = append(out, [2]string{name, path.Join(z, name)})
		}
	}
	for _, f := range startup.Files(func(v string) string { return h.Env[v] }) {
		out = append(out, [2]string{f[0], g.resolvedUnrecorded(f[1])})
	}
	for _, d := range absList(h.Env["PYTHONPATH"]) {
		for _, m := range []string{"sitecustomize.py", "usercustomize.py"} {
			out = append(out, [2]string{"PYTHONPATH", path.Join(g.resolvedUnrecorded(d), m)})
		}
	}
	for _, d := range g.pathDirs(h) {
		out = append(out, [2]string{AllowPath, d})
	}
	return out
}

// codeDirNotes returns a warning for each directory of
// startup.CodeDirVars that lies in a writable root: what a command
// writes there, a host program started with that variable loads.
func (g *gatherer) codeDirNotes(h *Host, roots []writableRoot) []string {
	if h == nil {
		return nil
	}
	var out []string
	for _, v := range startup.CodeDirVars {
		for _, d := range absList(h.Env[v]) {
			r := g.resolvedUnrecorded(d)
			for _, root := range roots {
				if Within(r, root.dir) {
					out = append(out, fmt.Sprintf("$%s names %s, inside the writable %s: host programs started with it load what a command writes there (libraries, modules); point it elsewhere while an agent works there, or review the directory before running them", v, d, root.dir))
					break
				}
			}
		}
	}
	return out
}
