package startup

import "strings"

// HomeNames are the entries of a home directory (the home
// directory as the working directory or under a read-write bind, and
// the profile home of home_mode: profile) that a tool reads as code, or
// as a setting that names a program to run, at its own start, with no
// user action beyond running the tool (H9); a project directory's
// entries of the same names are left alone (build files the user runs
// knowingly). facts.ProtectedNames binds the existing ones read-only,
// and bwrun's post-command scan sets aside one a command creates, as
// for Names. The python user site directory is not a name: its
// hooks are found by content (PthRunsCode, PythonCustomize).
var HomeNames = []string{
	// npm reads ~/.npmrc at every start: node-options, script-shell,
	// shell, git, editor, onload-script name programs it runs (pnpm reads
	// it too); yarn 1's yarn-path, yarn 2+'s yarnPath and plugins, bun's
	// preload run code.
	".npmrc", ".yarnrc", ".yarnrc.yml", ".bunfig.toml",
	// Interpreters and REPLs that run a file of the home at start: R,
	// Julia, irb, pry, ghci, Octave, Guile, SBCL, IPython's startup
	// files and configuration, Jupyter's configuration (python code).
	".Rprofile", ".Renviron", ".julia/config", ".irbrc", ".config/irb/irbrc", ".pryrc",
	".ghci", ".octaverc", ".guile", ".sbclrc",
	".ipython/profile_default/startup", ".ipython/profile_default/ipython_config.py",
	".jupyter/jupyter_config.py", ".jupyter/jupyter_server_config.py",
	".jupyter/jupyter_notebook_config.py", ".jupyter/jupyter_lab_config.py",
	// Cloud and container CLIs find these through $HOME (the profile
	// home's are not among the denied paths, which are the host
	// home's): the AWS CLI and SDKs run credential_process, kubectl a
	// user's exec plugin, docker every CLI plugin it lists, gpg-agent
	// its pinentry-program. (ssh reads the passwd entry's home, not
	// $HOME, so the profile home's .ssh/config is not read.)
	".aws/config", ".kube/config", ".docker/cli-plugins", ".gnupg/gpg-agent.conf",
	// Database shells run their rc file's shell escapes (\!, .system).
	".psqlrc", ".sqliterc",
	// CPAN's configuration is perl code (cpan).
	".cpan/CPAN/MyConfig.pm", ".local/share/.cpan/CPAN/MyConfig.pm",
	// Build tools: cargo's home configuration (rustc-wrapper, runners,
	// aliases) for every build, Gradle's init scripts and JVM options.
	".cargo/config.toml", ".cargo/config",
	".gradle/init.d", ".gradle/init.gradle", ".gradle/init.gradle.kts", ".gradle/gradle.properties",
	// Editors git starts (core.editor unset: vi, $EDITOR), and what
	// they load at start.
	".vimrc", ".vim", ".gvimrc", ".exrc", ".config/nvim",
	".emacs", ".emacs.el", ".emacs.d/init.el", ".emacs.d/early-init.el",
	".config/emacs/init.el", ".config/emacs/early-init.el",
	// less is git's pager: a lesskey file's #env section sets LESSOPEN
	// (an input preprocessor run for every file).
	".lesskey", ".config/lesskey", ".less",
	// Other version control systems' hooks, direnv's library (sourced
	// before every .envrc) and its configuration, terminal multiplexers
	// and prompts that run commands at start.
	".hgrc", ".config/hg/hgrc", ".direnvrc", ".config/direnv",
	".tmux.conf", ".config/tmux/tmux.conf", ".screenrc", ".config/starship.toml",
	// More shells' start-up files.
	".config/nushell", ".elvish/rc.elv", ".config/elvish/rc.elv", ".xonshrc",
	".config/xonsh/rc.xsh", ".config/powershell/Microsoft.PowerShell_profile.ps1",
	".config/powershell/profile.ps1",
	// The graphical session: Xsession's script, KDE's login and
	// shutdown scripts, window managers' exec lines.
	".xsession", ".config/plasma-workspace/env", ".config/plasma-workspace/shutdown",
	".config/openbox/autostart", ".config/i3/config", ".config/sway/config", ".config/hypr/hyprland.conf",
	// Directories on PATH ahead of the system's by default (Debian's
	// ~/.profile adds ~/bin; rustup's env ~/.cargo/bin; go install
	// writes ~/go/bin): a command left there shadows one the host runs.
	"bin", ".cargo/bin", "go/bin",
}

// homeNamedPath reports whether host path p is a HomeNames
// entry of some directory.
func homeNamedPath(p string) bool {
	for _, n := range HomeNames {
		if strings.HasSuffix(p, "/"+n) || relocatedSuffix(p, n) {
			return true
		}
	}
	return false
}
