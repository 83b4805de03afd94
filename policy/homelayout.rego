# H10: the home layout. In the allowlist layout HOME is a fresh tmpfs
# with its non-dot entries and the allowed dot entries bound back; what
# it leaves out is absent. These rules refuse what would undo it or run
# somewhere it cannot.
package bwpolicy.rules

layout := input.facts.home_layout

# The working directory inside an entry the layout leaves out: no command
# could start there (and binding it would show what the layout hides).
# METADATA
# title: "The home directory's allowlist layout: only non-dot entries and allowed dot entries are visible, and no command creates a denied path on the host."
# description: "HOME is a fresh tmpfs with its non-dot entries bound back and only the allowed dot entries (a built-in list of shell rc files and toolchains, the PATH directories under HOME, home.allow) bound back read-only; denied paths inside them stay masked. A working directory or bind inside an entry the layout leaves out, or a writable directory where a command could create an absent denied path, is refused: add the entry to home.allow, use the allowlist layout, or narrow the working directory. So is, in both layouts, a home path the host reads or runs (a denied entry, an allowed entry, an H9 start-up name) whose symlink chain passes through a link in the writable set or ends at a missing path there: point it straight at the final target, or create the target first."
# custom:
#   id: H10
#   name: HomeLayout
#   level: error
#   security: true
deny contains v("H10", sprintf("the working directory %q lies in %q, which the home layout leaves out: add it to home.allow (e.g. home: {allow: [%q]}) or set home.layout: denylist", [input.facts.cwd.real, input.facts.cwd.home_left, home_rel(input.facts.cwd.home_left)]), ["cwd"]) if {
	input.facts.cwd.home_left != ""
	input.facts.cwd.hidden_by == "" # else R6 refuses it
}

# The working directory at a directory the layout rebuilds (~/.config)
# under a profile whose working directory is writable: its read-write
# bind would show all of it but the denied paths, which is what the
# layout is there to prevent (home.allow refuses such an entry too), and
# the layout's tmpfs would cover it. Where the working directory is not
# writable (restricted) nothing is bound there: the command starts in the
# layout's own read-only rebuild of it (its allowed entries, the denied
# paths masked), as `bwrun --chdir` does and as Hermes' backend runs it.
deny contains v("H10", sprintf("the working directory %q is a directory the home layout rebuilds as a tmpfs, and this profile would bind it read-write: use a project directory, the restricted profile (it runs there read-only), or set home.layout: denylist", [input.facts.cwd.real]), ["cwd"]) if {
	input.profile.cwd_writable
	some d in layout.dirs
	d != layout.home
	input.facts.cwd.real == d
}

deny contains v("H10", sprintf("the source %q lies in %q, which the home layout leaves out: add it to home.allow or set home.layout: denylist", [b.src, b.src_home_left]), ["binds", b.index, "src"]) if {
	some b in input.facts.binds
	b.src_home_left != ""
	count(b.src_under_hidden) == 0 # else R1 drops it
}

deny contains v("H10", sprintf("the destination %q lies in %q, which the home layout leaves out: add it to home.allow or set home.layout: denylist", [b.dest, b.dest_home_left]), ["binds", b.index, "dest"]) if {
	some b in input.facts.binds
	b.dest_home_left != ""
	count(b.src_under_hidden) == 0 # else R1 drops it
}

deny contains v("H10", sprintf("the destination %q is a directory the home layout rebuilds as a tmpfs, which would cover the bind: allow the entries you need with home.allow, bind something below it, or set home.layout: denylist", [b.dest]), ["binds", b.index]) if {
	some b in input.facts.binds
	some d in layout.dirs
	b.dest_real == d
}

deny contains object.union(v("H10", sprintf("%s has more entries than the home layout looks through: it cannot be rebuilt; set home.layout: denylist", [d]), ["home"]), {"host": true}) if {
	some d in layout.truncated
}

# A home path the host reads or runs (a denied entry, masked at its
# target; an allowed entry; a start-up name, shown or not) whose symlink
# chain passes through a link in the writable set, or ends at an absent
# path there: a command could re-point the link or create the path, and
# the host would read what it chose. A bind can keep neither in place.
deny contains v("H10", chain_msg(c), chain_key(c)) if {
	some c in input.facts.home_chains
	not c.allowed
}

warn contains v("H10", sprintf("%s (protect.allow names it: left so)", [chain_msg(c)]), chain_key(c)) if {
	some c in input.facts.home_chains
	c.allowed
}

chain_key(c) := ["cwd"] if c.bind_index == -1

chain_key(c) := ["binds", c.bind_index] if c.bind_index >= 0

chain_where(c) := sprintf("the writable directory %s", [c.root]) if c.bind_index == -1

chain_where(c) := sprintf("this read-write bind %s", [c.root]) if c.bind_index >= 0

chain_what(c) := sprintf("the denied home path %s (hidden in the sandbox, its mask at the chain's present end)", [c.entry]) if c.why == "denied"

chain_what(c) := sprintf("the allowed home entry %s", [c.entry]) if c.why == "allowed"

chain_what(c) := sprintf("the start-up entry %s (the host's shells, session or tools run it)", [c.entry]) if c.why == "start-up"

chain_what(c) := sprintf("the home dot entry %s (whatever its name, the host's shells, session or tools may read or run it)", [c.entry]) if c.why == "dot link"

# The whole chain, as the message shows it: entry -> link -> ... -> end.
chain_text(c) := concat(" -> ", array.concat([c.entry], [p | some p in c.chain; p != c.entry]))

chain_fix(c) := sprintf("point %s straight at the final target, move the link out of the writable directory, or %s", [c.entry, chain_narrow(c)]) if {
	not c.missing
	not c.holds
}

chain_fix(c) := sprintf("point %s elsewhere, remove it, or %s", [c.entry, chain_narrow(c)]) if c.holds

chain_fix(c) := sprintf("create the target first (it is then bound read-only), point %s elsewhere, or %s%s", [c.entry, chain_narrow(c), chain_allow(c)]) if c.missing

chain_narrow(c) := "use a working directory that does not hold it" if c.bind_index == -1

chain_narrow(c) := "bind it read-only or bind a narrower directory" if c.bind_index >= 0

chain_allow(c) := sprintf(" (or name %s in protect.allow to accept it)", [trim_prefix(c.entry, concat("", [input.facts.home, "/"]))]) if c.why == "start-up"

chain_allow(c) := "" if c.why != "start-up"

chain_msg(c) := sprintf("%s is a symlink inside %s on the symlink chain of %s (%s): a command could re-point it, and the host would read what it chose; %s", [c.path, chain_where(c), chain_what(c), chain_text(c), chain_fix(c)]) if {
	not c.missing
	not c.holds
}

chain_msg(c) := sprintf("the symlink chain of %s (%s) ends at %s, which does not exist and lies inside %s: a command could create it, and the host would read or run it later; %s", [chain_what(c), chain_text(c), c.path, chain_where(c), chain_fix(c)]) if c.missing

chain_msg(c) := sprintf("the symlink chain of %s (%s) ends at the directory %s, which is or holds %s: the host would read what a command writes there, and nothing below it can be kept read-only without the writable directory; %s", [chain_what(c), chain_text(c), c.path, chain_where(c), chain_fix(c)]) if c.holds

# A home directory (or one of its dot directories) with more entries
# than the compile looks through for dot links: a link past the bound
# would go unheld, so the compile is refused.
deny contains object.union(v("H10", sprintf("%s has more dot entries than the compile looks through for symlinks (4096): a link past them would not be held read-only; move entries out of it", [d]), ["home"]), {"host": true}) if {
	some d in input.facts.home_dot_links_truncated
}

warn contains object.union(v("H10", sprintf("%s is allowed but is a symlink to a path the home layout leaves out or hides: it dangles in the sandbox", [p]), []), {"host": true}) if {
	some p in layout.dangling
}

# The layout is one mount per entry it binds back, and bwrap reads the
# whole mount table again after each mount: its set-up time grows with
# the square of the binds, paid on every command.
many_home_binds := 100

warn contains object.union(v("H10", sprintf("the home layout binds %d entries of HOME back, one mount each, and bwrap's set-up time grows with the square of its mounts (about 25 ms per command at 100 and 70 ms at 200 on a 2-vCPU machine): move rarely used top-level entries into a directory, or set home.layout: denylist", [n]), ["home"]), {"host": true}) if {
	n := layout.mounts
	n > many_home_binds
}

warn contains object.union(v("H10", layout.note, []), {"host": true}) if {
	layout.mode == "allowlist"
	layout.note != ""
}

# A home.allow entry that names no unit the layout can show on its own:
# a rebuilt directory itself (.config would show all of it but the
# denied paths, which the layout is there to prevent), a non-dot entry
# (shown anyway) or no path inside HOME. Refused, naming the units it
# may name instead, as Hermes' backend refuses such an entry.
deny contains v("H10", sprintf("home.allow entry %q is not a unit the home layout shows on its own (%s)%s", [n.entry, n.why, not_unit_hint(n)]), ["home", "allow", n.index]) if {
	some n in object.get(layout, "not_units", [])
}

not_unit_hint(n) := sprintf(": name what you need inside it instead, e.g. %s", [concat(", ", n.units)]) if count(n.units) > 0

not_unit_hint(n) := ": name a dot entry of HOME (.mytool) or an entry of ~/.config, ~/.local, ~/.local/share (.config/myapp, .local/bin)" if count(n.units) == 0

# A home.allow entry inside a denied path: the denied part stays hidden.
warn contains v("H10", sprintf("home.allow entry %q lies inside the denied path %q: it stays hidden (deny always wins)", [a, h.entry]), ["home", "allow", i]) if {
	some i, a in object.get(input.settings, ["home", "allow"], [])
	p := concat("/", [input.facts.home, trim_prefix(a, "~/")])
	some h in input.facts.hidden
	h.setting != "hide"
	within(p, h.entry)
}

# A home.allow entry that names the home as a whole ("$HOME", which the
# decode stage writes "~/" like every spelling of the home) would bind
# HOME back whole: refused, as "~" and "~/" are by the schema.
deny contains v("H10", sprintf("home.allow entry %q names the whole home directory: it would bind HOME back whole; name the entries to allow, or set home.layout: denylist", [a]), ["home", "allow", i]) if {
	some i, a in object.get(input.settings, ["home", "allow"], [])
	a == "~/"
}

# A hide entry that matches the home directory (or above it) would mask
# HOME as a whole: refused, in both layouts (use home.layout: allowlist).
deny contains v("H10", sprintf("hide entry %q matches %q, the home directory or above it: refused (the allowlist home layout already hides every dot entry that is not allowed)", [object.get(input.settings, "hide", [])[h.hide_index], h.path]), ["hide", h.hide_index]) if {
	some h in hide_matches
	within(input.facts.home, h.path)
}

home_rel(p) := trim_prefix(p, concat("", [layout.home, "/"]))

# No command creates a denied path on the host: an absent one inside the
# writable set would be created by the command and used by the host
# later (~/.ssh/authorized_keys, ~/.config/gh/hosts.yml). One refusal per
# writable directory, naming the first paths and the fix.
deny contains v("H10", sprintf("a command could create the denied path %s on the host (absent now, inside the writable directory %s)%s: %s", [first, r, creatable_more(r), creatable_fix]), ["cwd"]) if {
	some r in {c.root | some c in input.facts.creatable_denied; c.bind_index == -1}
	r != "/" # R5 refuses that working directory already
	first := min({c.path | some c in input.facts.creatable_denied; c.root == r})
}

deny contains v("H10", sprintf("a command could create the denied path %s on the host (absent now, inside this read-write bind %s)%s: bind it read-only or bind a narrower directory", [first, r, creatable_more(r)]), ["binds", i]) if {
	some i in {c.bind_index | some c in input.facts.creatable_denied; c.bind_index >= 0}
	r := min({c.root | some c in input.facts.creatable_denied; c.bind_index == i})
	first := min({c.path | some c in input.facts.creatable_denied; c.bind_index == i})
}

creatable_more(r) := "" if count({c | some c in input.facts.creatable_denied; c.root == r}) == 1

creatable_more(r) := sprintf(" and %d more", [n - 1]) if {
	n := count({c | some c in input.facts.creatable_denied; c.root == r})
	n > 1
	count(input.facts.creatable_denied) < 16
}

creatable_more(r) := " and more" if {
	count({c | some c in input.facts.creatable_denied; c.root == r}) > 1
	count(input.facts.creatable_denied) >= 16 # facts lists at most 16
}

creatable_fix := "use a narrower working directory" if layout_active

creatable_fix := "use the allowlist home layout (home.layout: allowlist) or a narrower working directory" if not layout_active

# layout_active: the allowlist layout rebuilds the home directory (dirs
# is null under the denylist layout).
layout_active if some _ in layout.dirs
