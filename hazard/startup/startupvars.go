package startup

// This file names the files the user's environment makes host programs
// run or load (H9): a BASH_ENV every non-interactive bash sources, git's
// system configuration at GIT_CONFIG_SYSTEM, an EDITOR that is a script.
// Where one lies in a writable directory, the compile binds it read-only
// (recording it when absent) and bwrun's scan sets aside one a command
// created; the directory lists that make programs load code
// (CodeDirVars) are warned about instead.

import (
	"path"
	"strings"
)

// FileVars are the variables whose value names a file a host
// program runs or reads as configuration that can run code: shells'
// BASH_ENV and ENV, git's GIT_CONFIG_GLOBAL and GIT_CONFIG_SYSTEM,
// python's PYTHONSTARTUP, the loader's LD_PRELOAD (a list), and the
// commands other programs start (EDITOR, VISUAL, PAGER, GIT_EDITOR,
// GIT_PAGER, GIT_SSH, the askpass helpers, …: the first word of the
// value, when it is a path).
var FileVars = []string{
	"BASH_ENV", "ENV", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "PYTHONSTARTUP", "LD_PRELOAD",
	"EDITOR", "VISUAL", "PAGER", "MANPAGER", "GIT_EDITOR", "GIT_PAGER", "GIT_SEQUENCE_EDITOR",
	"SUDO_EDITOR", "BROWSER", "GIT_SSH", "GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS",
}

// CodeDirVars are the variables whose value lists directories a host
// program loads code from (libraries, modules), any file there: binding
// them read-only would stop the work in a project that points them at
// its own build, so a writable one is warned about.
var CodeDirVars = []string{"LD_LIBRARY_PATH", "PYTHONPATH", "PERL5LIB", "PERLLIB", "RUBYLIB", "NODE_PATH", "CLASSPATH"}

// Files returns the absolute paths the variables of
// FileVars name in env (looked up with getenv), cleaned, with
// the variable that names each.
func Files(getenv func(string) string) [][2]string {
	var out [][2]string
	for _, v := range FileVars {
		val := strings.TrimSpace(getenv(v))
		if val == "" {
			continue
		}
		var paths []string
		switch v {
		case "LD_PRELOAD":
			paths = strings.FieldsFunc(val, func(r rune) bool { return r == ':' || r == ' ' })
		case "BASH_ENV", "ENV", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "PYTHONSTARTUP":
			paths = []string{val}
		default: // a command line: its program
			paths = strings.Fields(val)[:1]
		}
		for _, p := range paths {
			if path.IsAbs(p) {
				out = append(out, [2]string{v, path.Clean(p)})
			}
		}
	}
	return out
}
