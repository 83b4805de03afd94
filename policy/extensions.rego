# Rules on the settings that go beyond the seed (docs/protections.md, "Beyond the seed (H)").
package bwpolicy.rules

# H3: port allowlists only make sense where there is a network.
# METADATA
# title: "TCP port allowlists (Landlock) apply to the network profile only."
# description: "The other profiles have no network: remove network.tcp_connect / tcp_bind, or use profile: network."
# custom:
#   id: H3
#   name: PortAllowlists
#   level: error
#   security: true
deny contains v("H3", "network.tcp_connect / tcp_bind apply to the network profile only (the others have no network)", ["network"]) if {
	input.settings.network
	input.profile.network != "host"
	some k in ["tcp_connect", "tcp_bind"]
	count(object.get(input.settings.network, k, [])) > 0
}

# H4: a hide entry that could not be expanded is an error: a user must
# never believe a path is hidden when it is not.
# METADATA
# title: "User-declared hide entries (globs included)."
# description: "Paths listed under hide: are masked like the built-in hidden paths."
# custom:
#   id: H4
#   name: UserHidePaths
#   level: error
#   security: true
deny contains v("H4", e.message, ["hide", e.index]) if {
	some e in input.facts.hide_errors
}

# H4: a shell expansion bwpolicy does not make (~user, $VAR, ${VAR…})
# would hide a file of that literal name, not the path it meant: refused.
# The home's own spellings (~, ~/, $HOME, ${HOME}) are "~/" by now.
deny contains v("H4", sprintf("hide entry %q holds a shell expansion bwpolicy does not make (~user, $VAR, ${VAR}): it would hide a file of that literal name, not the path meant; only ~, ~/, $HOME and ${HOME} name the home: write the path (a literal $ in a name: [$])", [h]), ["hide", i]) if {
	some i, h in object.get(input.settings, "hide", [])
	unexpanded_shell(h)
}

unexpanded_shell(h) if regex.match(`^~[^/]`, h)

unexpanded_shell(h) if regex.match(`\$[{A-Za-z_]`, h)

# H4: relative hide entries need an existing working directory.
warn contains v("H4", sprintf("hide entry %q is relative to the working directory, which does not exist: not expanded", [h]), ["hide", i]) if {
	not input.facts.cwd.exists
	some i, h in object.get(input.settings, "hide", [])
	not startswith(h, "~/")
	not startswith(h, "/")
}

# H7: a path a credential variable names that cannot be hidden is said,
# so nobody believes it is.
# METADATA
# title: "Credential stores beyond the seed's list (git, gh, pass, 1Password and Bitwarden agent sockets, …) and the paths credential variables name (SSH_AUTH_SOCK, GNUPGHOME, AWS_SHARED_CREDENTIALS_FILE, KUBECONFIG, …) are hidden."
# description: "A path that is the working directory, the home directory or above one of them cannot be hidden: point the variable at the credential itself."
# custom:
#   id: H7
#   name: CredentialLocations
#   level: warning
#   security: true
warn contains object.union(v("H7", sprintf("$%s names %q, which %s: not hidden", [s.var, s.path, s.reason]), []), {"host": true}) if {
	some s in input.facts.env_skips
}

# H3: on a cloud VM the instance metadata service (169.254.169.254, port
# 80) hands the machine's credentials to any local process. Under the
# network profile a command reaches it unless a Landlock connect
# allowlist (ABI 4) leaves port 80 out.
warn contains object.union(v("H3", sprintf("this machine is a virtual machine of %s: its metadata service (169.254.169.254, port 80) hands out the machine's credentials to any process, and the network profile reaches it; set network.tcp_connect without 80 (e.g. [443]), or block it on the host (IMDSv2 with hop limit 1, a firewall rule)", [input.facts.cloud]), ["network"]), {"host": true}) if {
	input.facts.cloud != ""
	input.profile.network == "host"
	not metadata_port_closed
}

metadata_port_closed if {
	input.facts.landlock_abi >= 4
	ports := object.get(object.get(input.settings, "network", {}), "tcp_connect", null)
	ports != null
	not 80 in ports
}

# H9: a protected entry reached through a symlink inside the writable
# directory cannot be kept read-only (the link itself can be replaced).
# METADATA
# title: "Inside a writable directory, what runs later outside the sandbox stays read-only: .git/config and .git/hooks, shell start-up files, .envrc, .vscode/.idea, agent task files, autostart entries and user services, ~/.local/bin."
# description: "Change them outside the sandbox. One reached through a symlink inside the writable directory cannot be protected: replace the link by the file or directory."
# custom:
#   id: H9
#   name: ProtectedEntries
#   level: warning
#   security: true
warn contains object.union(v("H9", sprintf("%s is reached through a symlink inside the writable directory %s: it cannot be kept read-only, so a command can change what runs there outside the sandbox", [p.path, p.root]), []), {"host": true}) if {
	some p in input.facts.protected
	p.symlink
	not p.allowed
	not home_link_entry(p.path)
}

# H9: a writable directory that is itself one of the home's protected
# entries, or lies inside one (a read-write bind of ~/.local/bin, of
# ~/.config/systemd/user or a unit directory below it, of ~/.bashrc; the
# working directory ~/.config/autostart), as written or through a
# symlink: the names protected below a writable directory do not cover
# the directory itself, which the host runs from later. Refused at the
# setting that makes it writable, unless protect.allow names the entry
# (that name's own warning then says it stays writable).
writable_protected_path(w) := ["binds", w.index, "src"] if w.index >= 0

writable_protected_path(w) := ["cwd"] if w.index < 0

writable_protected_what(w) := sprintf("read-write bind source %q", [input.facts.binds[w.index].src]) if w.index >= 0

writable_protected_what(w) := sprintf("the working directory %q", [input.facts.cwd.path]) if w.index < 0

deny contains v("H9", sprintf("%s is or lies inside %s (the home's protected %s), which the host runs or reads later outside the sandbox: a command could plant what it runs; keep it read-only, or add %q to protect.allow to leave it writable", [writable_protected_what(w), w.entry, w.name, w.name]), writable_protected_path(w)) if {
	some w in input.facts.writable_protected
	not w.name in object.get(object.get(input.settings, "protect", {}), "allow", [])
}

# An allowed home entry that is a symlink is recreated in the home
# layout's tmpfs (a command can replace only that copy), and its chain's
# links and target in the writable set are kept read-only (H10).
home_link_entry(p) if {
	some e in input.facts.home_layout.entries
	e.path == p
	e.kind == "symlink"
}

# H9: a writable directory with more repositories below it than the
# compile binds read-only (64 at any depth, submodules included, found
# by bwrun's own walk; 16 linked worktrees each; 1,000,000 entries and 64
# levels looked through; a git pointer too long to follow) is accepted:
# the first ones stay bound read-only (they close the window in which the
# user's editor runs git while a command runs), and the rest are covered
# by the environment's ledger and bwrun's post-command scan, which sets
# aside after every command what a later host git would run that the
# ledger does not hold (issue 26: 70 repositories a command makes do not
# lock the environment). A warning says which is which.
truncated_path(w) := ["binds", w.index] if {
	w.index
} else := ["home_mode"] if {
	w.what == "the profile home"
} else := ["cwd"]

warn contains v("H9", sprintf("%s holds more repositories (or entries, linked worktrees, or a git pointer longer) than the compile binds read-only: the first 64 repositories below it (16 worktrees each) are bound read-only; past them (and past 1,000,000 entries or 64 levels) their config and hooks are writable while a command runs, and bwrun's post-command scan sets aside, after every command, what a later host git would run that the environment's ledger does not hold (review with `bwpolicy trust --list`)", [d]), truncated_path(w)) if {
	some d in input.facts.protected_truncated
	some w in writable_dirs
	w.dir == d
}
