package startup

import "strings"

// Names are the entries of a writable directory, other than
// git's own, that something on the host runs later without being asked
// (H9): shell start-up files of every shell (and the files the usual
// ones source), direnv's .envrc, login-session environments, autostart
// entries, user services and D-Bus activations, ~/.local/bin on PATH,
// and the editor, IDE and agent files whose tasks, hooks or MCP servers
// the host starts. facts.ProtectedNames binds the existing ones
// read-only; one a command creates where none was is set aside after
// the command (ScanGit), not only warned about: it would run before
// anyone read the warning.
var Names = []string{
	".bash_login", ".bash_logout", ".bash_profile", ".bashrc", ".profile",
	".zlogin", ".zprofile", ".zshenv", ".zshrc",
	".config/fish/config.fish",
	".envrc",
	".ripgreprc", ".mcp.json",
	".vscode", ".idea",
	".claude/commands", ".claude/agents", ".claude/settings.json",
	".cursor/mcp.json", ".gemini/settings.json",
	".devcontainer",
	".config/autostart", ".config/systemd/user",
	".local/bin",
	// Sourced by Debian's and Ubuntu's ~/.bashrc; read by other shells
	// (mksh, ksh93, csh/tcsh, zsh on logout, fish's conf.d and
	// autoloaded functions).
	".bash_aliases", ".mkshrc", ".kshrc", ".zlogout", ".cshrc", ".tcshrc", ".login",
	".config/fish/conf.d", ".config/fish/functions",
	// The login session: environment.d and pam_env (LD_PRELOAD, PATH,
	// GIT_* for every later process), X session scripts, user units
	// under XDG_DATA_HOME, D-Bus services started on first use.
	".config/environment.d", ".pam_environment", ".xprofile", ".xsessionrc", ".xinitrc",
	".local/share/systemd/user", ".local/share/dbus-1/services",
	// More files whose hooks, tasks or MCP servers the host starts:
	// VS Code's root-level dev container file, Claude Code's local
	// settings (hooks), Cursor's hooks, Gemini's custom commands, Zed's
	// tasks and context servers, Continue, Roo, Amazon Q and opencode.
	".devcontainer.json", ".claude/settings.local.json", ".cursor/hooks.json", ".gemini/commands",
	".zed", ".continue", ".roo/mcp.json", ".amazonq", "opencode.json",
	// Mercurial's repository configuration: [hooks] and [extensions]
	// run on the host at the next hg status (a shell prompt runs it).
	".hg/hgrc",
}

// NamedPath reports whether host path p is a Names or
// HomeNames entry of some directory (p ends in "/" + a name).
func NamedPath(p string) bool {
	for _, n := range Names {
		if strings.HasSuffix(p, "/"+n) || relocatedSuffix(p, n) {
			return true
		}
	}
	return homeNamedPath(p)
}

// relocatedSuffix reports whether p ends in name's part below .config or
// .local/share: where XDG_CONFIG_HOME or XDG_DATA_HOME moves it
// (~/dots/xdg/systemd/user for .config/systemd/user). Only recorded
// paths are judged so (the compile recorded them as start-up names).
func relocatedSuffix(p, name string) bool {
	for _, dir := range []string{".config/", ".local/share/"} {
		if rest, ok := strings.CutPrefix(name, dir); ok && strings.HasSuffix(p, "/"+rest) {
			return true
		}
	}
	return false
}
