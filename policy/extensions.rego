# Rules on the settings that go beyond the seed (SPEC §11).
package bwpolicy.rules

# H3: port allowlists only make sense where there is a network.
deny contains v("H3", "network.tcp_connect / tcp_bind apply to the network profile only (the others have no network)", ["network"]) if {
	input.settings.network
	input.profile.network != "host"
	some k in ["tcp_connect", "tcp_bind"]
	count(object.get(input.settings.network, k, [])) > 0
}

# H4 is not built yet: refuse hide entries rather than let a user believe
# a path is hidden when it is not.
deny contains v("H4", "hide: is not supported by this version of bwpolicy yet; nothing would be hidden", ["hide"]) if {
	count(object.get(input.settings, "hide", [])) > 0
}
