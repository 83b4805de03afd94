# Path helpers shared by the rules. Paths in the input are absolute and
# clean (the facts stage made them so).
package bwpolicy.rules

# within(p, base): p is base or lies under it. One body (one builtin
# call) because it runs for every pair of paths the rules compare.
within(p, base) if startswith(concat("", [p, "/"]), concat("", [trim_suffix(base, "/"), "/"]))

# missing(kind): nothing a sandbox could reach is there — absent, or
# denied (a directory on the way, another user's, denies this user
# search: out of reach for good, inside the sandbox too).
missing(kind) if kind == "absent"

missing(kind) if kind == "denied"

# hidden_present: the hidden paths that are there (not missing), and
# hide_matches: the hidden paths a hide entry matched (H4). Computed once
# per evaluation: most of the denied set is absent on a given host, and
# the rules below compare only what is present (the facts stage lists
# where it is: input.facts.hidden_present).
hidden_present := [input.facts.hidden[i] | some i in input.facts.hidden_present]

hide_matches := [h | some h in hidden_present; h.setting == "hide"]

# dirname(p): the parent directory of an absolute path.
dirname(p) := "/" if {
	parts := split(trim_prefix(p, "/"), "/")
	count(parts) == 1
}

dirname(p) := concat("", ["/", concat("/", array.slice(parts, 0, count(parts) - 1))]) if {
	parts := split(trim_prefix(p, "/"), "/")
	count(parts) > 1
}

# hidden_roots: every place a present hidden path is masked or named
# (input.facts.masks, computed once by the facts stage). The S4 masks
# (agent sockets, docker socket) count at their resolved path: a bind
# must not show them somewhere else either.
hidden_roots contains m.path if some m in input.facts.masks

hidden_roots contains e if {
	some m in input.facts.masks
	m.why != "S4"
	some e in m.entries
}

# ancestors(p): p and every directory above it, "/" included. The rules
# look paths up by their ancestors in keyed sets, so their cost grows
# with the number of paths, not with its square.
ancestors(p) := {a |
	parts := split(trim_prefix(p, "/"), "/")
	some i in numbers.range(0, count(parts))
	a := concat("", ["/", concat("/", array.slice(parts, 0, i))])
}

# hidden_over(p): the present hidden paths p is at or under, sorted.
hidden_over(p) := sort([a | some a in ancestors(p); hidden_roots[a]])

under_hidden(p) if count(hidden_over(p)) > 0

# writable_cwd: the working directory when the profile makes it writable.
# A working directory of / is refused by R5 and judged no further: rules
# about what lies inside it would only contradict each other.
writable_cwd := input.facts.cwd.real if {
	input.profile.cwd_writable
	input.facts.cwd.exists
	input.facts.cwd.real != "/"
}

profile_home := input.facts.profile_home.real if input.facts.home_mode == "profile"

bind_src(b) := b.src_real if b.src_real != ""

bind_src(b) := b.src if b.src_real == ""

v(rule, msg, path) := {"rule": rule, "msg": msg, "path": path}
