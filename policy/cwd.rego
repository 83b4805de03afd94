# Rules on the working directory: R5, R6, R7, and S9's missing cwd.
package bwpolicy.rules

# R5: a working directory of / would make the whole host writable.
# METADATA
# title: "A working directory of / is refused."
# description: "The working directory is writable; / would make the whole host writable. Set cwd to the project directory."
# custom:
#   id: R5
#   name: CwdIsRoot
#   level: error
#   security: true
deny contains v("R5", "the working directory is /: refused (it would make the whole host writable)", ["cwd"]) if {
	some p in {input.facts.cwd.path, input.facts.cwd.real}
	p == "/"
}

# R5: a working directory of /tmp, /proc or /dev (or inside /proc or
# /dev) would replace what the sandbox owns (S3: a fresh /tmp per command).
deny contains v("R5", sprintf("the working directory %q would replace the sandbox's own %s: refused", [input.facts.cwd.real, sys]), ["cwd"]) if {
	input.facts.cwd.exists
	some sys in ["/tmp", "/proc", "/dev"]
	within(input.facts.cwd.real, sys)
	not r5_tmp_subdir(input.facts.cwd.real, sys)
}

# A directory under /tmp is fine: it is bound over the fresh /tmp.
r5_tmp_subdir(p, "/tmp") if p != "/tmp"

# R6: a working directory under the Hermes home or a hidden path: no
# command could run there.
# METADATA
# title: "A working directory under the Hermes home or a hidden path is refused (or, when not set explicitly, moved to the home directory)."
# description: "Inside the sandbox that directory is masked, so no command could run there, and making it writable would expose what the mask protects. Set cwd elsewhere. With home_mode: profile a directory inside the profile home (HERMES_HOME/home) is accepted: the profile home is bound back, and its H9 entries stay read-only."
# custom:
#   id: R6
#   name: CwdUnderHiddenPath
#   level: error
#   security: true
deny contains v("R6", sprintf("the working directory %q lies under the hidden path %q: refused", [input.facts.cwd.requested, input.facts.cwd.hidden_by]), ["cwd"]) if {
	input.facts.cwd.explicit
	input.facts.cwd.hidden_by != ""
}

warn contains v("R6", sprintf("the process directory %q lies under the hidden path %q: starting in the home directory instead", [input.facts.cwd.requested, input.facts.cwd.hidden_by]), ["cwd"]) if {
	input.facts.cwd.fell_back == "home"
}

# R7: a writable home directory makes every dotfile outside the hidden set
# writable: a path back into the user's own shells.
# METADATA
# title: "A writable working directory equal to (or above) the home directory."
# description: "Every dotfile outside the hidden set (.bashrc, .profile, .local/bin) becomes writable: a path back into the user's own shells. Use a project directory as cwd."
# custom:
#   id: R7
#   name: CwdIsHome
#   level: warning
#   security: true
warn contains v("R7", sprintf("the working directory %q is the home directory or above it: every dotfile outside the hidden set becomes writable (.config, .cache, .npm and the like; H9 keeps .bashrc, .profile, .local/bin, autostart read-only)", [input.facts.cwd.real]), ["cwd"]) if {
	not layout_active
	input.profile.cwd_writable
	input.facts.cwd.exists
	input.facts.cwd.real != "/"
	within(input.facts.home, input.facts.cwd.real)
}

# S9: a missing working directory runs read-only in its nearest parent.
# METADATA
# title: "The working directory is the writable set; a missing one runs read-only in its nearest existing parent."
# description: "Create the directory, or fix cwd."
# custom:
#   id: S9
#   name: WorkingDirectory
#   level: warning
#   security: true
warn contains v("S9", sprintf("the working directory %q does not exist: commands run read-only in %q", [input.facts.cwd.path, input.facts.cwd.run_dir]), ["cwd"]) if {
	not input.facts.cwd.exists
	not input.facts.cwd.denied
}

warn contains v("S9", sprintf("the working directory %q cannot be entered (a directory on the way, or the directory itself, denies you search): commands run read-only in %q", [input.facts.cwd.path, input.facts.cwd.run_dir]), ["cwd"]) if {
	input.facts.cwd.denied
}

# R6 (H4): a hide entry that matches the working directory or a directory
# above it would mask the writable set itself.
deny contains v("R6", sprintf("hide entry %q matches %q, the working directory or above it: it would mask the working directory", [object.get(input.settings, "hide", [])[h.hide_index], h.path]), ["hide", h.hide_index]) if {
	some h in hide_matches
	input.facts.cwd.exists
	within(input.facts.cwd.real, h.path)
}

# R7 under the allowlist home layout: the dot entries stay read-only and
# new names land in the layout's tmpfs, but the non-dot entries are
# writable.
warn contains v("R7", sprintf("the working directory %q is the home directory or above it: every non-dot entry of the home directory becomes writable (dot entries stay read-only; a new name at the top of HOME fails: the home layout's tmpfs is read-only)", [input.facts.cwd.real]), ["cwd"]) if {
	layout_active
	input.profile.cwd_writable
	input.facts.cwd.exists
	input.facts.cwd.real != "/"
	within(input.facts.home, input.facts.cwd.real)
}
