# Path helpers shared by the rules. Paths in the input are absolute and
# clean (the facts stage made them so).
package bwpolicy.rules

# within(p, base): p is base or lies under it.
within(p, base) if p == base

within(_, "/")

within(p, base) if startswith(p, concat("", [base, "/"]))

# dirname(p): the parent directory of an absolute path.
dirname(p) := "/" if {
	parts := split(trim_prefix(p, "/"), "/")
	count(parts) == 1
}

dirname(p) := concat("", ["/", concat("/", array.slice(parts, 0, count(parts) - 1))]) if {
	parts := split(trim_prefix(p, "/"), "/")
	count(parts) > 1
}

# hidden_roots: every place a present hidden path is masked or named.
hidden_roots contains h.path if {
	some h in input.facts.hidden
	h.kind != "absent"
}

hidden_roots contains h.entry if {
	some h in input.facts.hidden
	h.kind != "absent"
}

# under_hidden(p): p is at or under a present hidden path.
under_hidden(p) := root if {
	some root in hidden_roots
	within(p, root)
}

# contains_hidden(p): a present hidden path lies strictly inside p.
contains_hidden(p) := root if {
	some root in hidden_roots
	root != p
	within(root, p)
}

# writable_cwd: the working directory when the profile makes it writable.
writable_cwd := input.facts.cwd.real if {
	input.profile.cwd_writable
	input.facts.cwd.exists
}

profile_home := input.facts.profile_home.real if input.facts.home_mode == "profile"

bind_src(b) := b.src_real if b.src_real != ""

bind_src(b) := b.src if b.src_real == ""

v(rule, msg, path) := {"rule": rule, "msg": msg, "path": path}
