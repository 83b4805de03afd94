# R8: with home_mode: profile, HERMES_HOME/home becomes HOME, readable and
# writable; it must be a plain directory, or a link to a directory
# outside the hidden set.
package bwpolicy.rules

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

r8_what(h) := sprintf("a link to %q inside a hidden path", [h.real]) if {
	h.kind == "dir"
	h.has_link
}

r8_what(h) := sprintf("a %s", [h.kind]) if {
	not h.kind in {"absent", "dir"}
}
