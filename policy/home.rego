# R8: with home_mode: profile, HERMES_HOME/home becomes HOME, readable and
# writable; it must be a plain directory, or a link to a directory
# outside the hidden set.
package bwpolicy.rules

# METADATA
# title: "With home_mode: profile, HERMES_HOME/home must be a plain directory or a link to a directory outside the hidden set."
# description: "That directory becomes HOME and is writable; anything else could make a hidden path writable. Recreate it as a plain directory."
# custom:
#   id: R8
#   name: ProfileHomeMustBePlainDir
#   level: error
#   security: true
deny contains v("R8", sprintf("home_mode is profile but %q is %s: it must be a plain directory or a link to a directory outside the hidden paths", [h.path, r8_what(h)]), ["home_mode"]) if {
	input.facts.home_mode == "profile"
	h := input.facts.profile_home
	not r8_ok(h)
}

r8_ok(h) if {
	h.kind == "dir"
	not h.has_link
}

r8_ok(h) if {
	h.kind == "dir"
	h.has_link
	not under_hidden(h.real)
}

r8_what(h) := "missing" if h.kind == "absent"

r8_what(h) := "out of your reach (a directory on the way, another user's, denies you search)" if h.kind == "denied"

r8_what(h) := sprintf("a link to %q inside a hidden path", [h.real]) if {
	h.kind == "dir"
	h.has_link
}

r8_what(h) := sprintf("a %s", [h.kind]) if {
	not h.kind in {"absent", "denied", "dir"}
}

# S6: a hidden path that resolves inside one of the directories bound back
# into a mask (the scratch and state directories, this environment's own,
# the staged roots, the profile home) or a CA bundle would be exposed by
# that exception: refused.
# exception_paths are exactly what the compiler binds back
# (input.facts.exceptions, computed once by the facts stage).
exception_paths contains e.path if some e in input.facts.exceptions

# METADATA
# title: "What is bound back inside a mask (the backend's state and scratch directories, the staged files, the profile home, a CA bundle) stays reachable, and never exposes a hidden path."
# description: "With --sandbox-id ID: HERMES_HOME/sandboxes/bwrap-ID read-write, HERMES_HOME/cache/scratch/hermes-bwrap-ID the private TMPDIR, other environments' hidden, attachments and cache/documents read-only. The private scratch follows the working directory: read-only under restricted, where TMPDIR is the sandbox's /tmp. Without an ID nothing of the Hermes home's scratch or state is bound back (the shared scratch holds other environments' files and sockets): TMPDIR is the sandbox's /tmp. A hidden path inside one of these is refused: move it or its link."
# custom:
#   id: S6
#   name: HermesExceptions
#   level: error
#   security: true
deny contains v("S6", sprintf("hidden path %q (%s) resolves inside %q, which stays reachable read-write (S6/S8): it would be exposed; move it or its link", [h.entry, h.path, x.path]), [p]) if {
	some h in hidden_present
	some x in input.facts.exceptions
	x.writable
	within(h.path, x.path)
	not h.var
	p := s6_path(h)
}

# S6 (H7): the same for a path a credential variable names.
deny contains object.union(v("S6", sprintf("$%s names %q, inside %q, which stays reachable (S6/S8): it cannot be hidden there; point the variable elsewhere", [h.var, h.path, e]), []), {"host": true}) if {
	some h in hidden_present
	h.var
	some e in exception_paths
	within(h.path, e)
}

# S6: staged: session binds each staged root's subdirectory named by the
# sandbox ID; without an ID no staged root is bound at all.
warn contains v("S6", "session needs a sandbox ID (compile --sandbox-id ID, or sandbox_id:): without one no staged file is bound, so it changes nothing", ["staged"]) if {
	input.settings.staged == "session"
	not input.facts.sandbox
}

# s6_path(h): the settings key a finding about hidden path h points at:
# hide (a hide entry's, hide[i]) or profile (typed by the registry row
# that found it: facts.Setting).
s6_path(h) := h.setting
