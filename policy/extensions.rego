# Rules on the settings that go beyond the seed (SPEC §11).
package bwpolicy.rules

# H3: port allowlists only make sense where there is a network.
deny contains v("H3", "network.tcp_connect / tcp_bind apply to the network profile only (the others have no network)", ["network"]) if {
	input.settings.network
	input.profile.network != "host"
	some k in ["tcp_connect", "tcp_bind"]
	count(object.get(input.settings.network, k, [])) > 0
}

# H4: a hide entry that could not be expanded is an error: a user must
# never believe a path is hidden when it is not.
deny contains v("H4", e.message, ["hide", e.index]) if {
	some e in input.facts.hide_errors
}

# H4: relative hide entries need an existing working directory.
warn contains v("H4", sprintf("hide entry %q is relative to the working directory, which does not exist: not expanded", [h]), ["hide", i]) if {
	not input.facts.cwd.exists
	some i, h in object.get(input.settings, "hide", [])
	not startswith(h, "~/")
	not startswith(h, "/")
}

# H7: a path a credential variable names that cannot be hidden is said,
# so nobody believes it is.
warn contains object.union(v("H7", sprintf("$%s names %q, which %s: not hidden", [s.var, s.path, s.reason]), []), {"host": true}) if {
	some s in input.facts.env_skips
}
