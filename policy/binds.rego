# Rules on the extra binds of the settings: R1–R4, R9, R10.
package bwpolicy.rules

# R9: a bind source that is relative or does not exist, or a dest that is
# not absolute.
# METADATA
# title: "A bind source that does not exist or is relative, or a destination that is not absolute."
# description: "Bind paths are host paths, resolved when the sandbox starts: use absolute paths that exist."
# custom:
#   id: R9
#   name: BindPathInvalid
#   level: error
#   security: true
deny contains v("R9", sprintf("bind source %q is not an absolute path", [b.src]), ["binds", b.index, "src"]) if {
	some b in input.facts.binds
	not b.src_abs
}

deny contains v("R9", sprintf("bind source %q does not exist", [b.src]), ["binds", b.index, "src"]) if {
	some b in input.facts.binds
	b.src_abs
	b.src_kind == "absent"
}

deny contains v("R4", sprintf("bind dest %q is out of your reach (a directory on the way, another user's, denies you search): bwrap could not mount there", [b.dest]), ["binds", b.index, "dest"]) if {
	some b in input.facts.binds
	b.dest_abs
	not missing(b.src_kind)
	b.dest_kind == "denied"
}

deny contains v("R9", sprintf("bind source %q is out of your reach (a directory on the way, another user's, denies you search): bwrap could not bind it", [b.src]), ["binds", b.index, "src"]) if {
	some b in input.facts.binds
	b.src_abs
	b.src_kind == "denied"
}

deny contains v("R9", sprintf("bind dest %q is not an absolute path", [b.dest]), ["binds", b.index, "dest"]) if {
	some b in input.facts.binds
	b.dest != b.src
	not b.dest_abs
}

# R1: a source at or under a hidden path is dropped.
# METADATA
# title: "A bind source at or under a hidden path is dropped."
# description: "Binding ~/.ssh (or anything under a hidden path) back into the sandbox would undo the mask, so bwpolicy leaves the bind out. Remove the bind, or bind a directory that holds no secrets."
# custom:
#   id: R1
#   name: BindUnderHiddenPath
#   level: warning
#   security: true
warn contains object.union(
	v("R1", sprintf("bind source %q is at or under the hidden path %q: dropped", [b.src, root]), ["binds", b.index, "src"]),
	{"drop_bind": b.index},
) if {
	some b in input.facts.binds
	b.src_abs
	count(b.src_under_hidden) > 0
	root := b.src_under_hidden[0]
}

# R2: a source containing a hidden path, mounted elsewhere, would show the
# hidden path at the new place: dropped.
# METADATA
# title: "A bind source that contains a hidden path, mounted at another place, is dropped."
# description: "Hidden paths are masked only at their own location; mounting their parent somewhere else (dest ≠ src) would expose them there. Bind it at its own path (dest = src), or bind a narrower directory."
# custom:
#   id: R2
#   name: BindContainsHiddenPathElsewhere
#   level: warning
#   security: true
warn contains object.union(
	v("R2", sprintf("bind source %q contains the hidden path %q and dest differs from src: dropped (bind it at its own path)", [b.src, root]), ["binds", b.index, "dest"]),
	{"drop_bind": b.index},
) if {
	some b in input.facts.binds
	b.src_abs
	b.dest != b.src
	count(b.src_under_hidden) == 0
	count(b.src_contains_hidden) > 0
	root := b.src_contains_hidden[0]
}

# R3: a read-write source inside a writable directory could be renamed or
# replaced with a symlink by a command, choosing what the next command
# mounts; refused unless dest = src, directly under that directory, and
# no symlink on the way.
writable_dirs contains {"dir": writable_cwd, "what": "the working directory"} if writable_cwd

writable_dirs contains {"dir": profile_home, "what": "the profile home"} if profile_home

writable_dirs contains {"dir": bind_src(o), "what": sprintf("the read-write bind binds[%d]", [o.index]), "index": o.index} if {
	some o in input.facts.binds
	o.src_abs
	o.readonly == false
}

# writable_by_dir[dir]: the writable directories keyed by path. Built
# once as a complete object (a comprehension), so each lookup is a map
# access rather than a pass over every bind.
writable_by_dir := {d: ws |
	some d in {w.dir | some w in writable_dirs}
	ws := {w | some w in writable_dirs; w.dir == d}
}

# METADATA
# title: "A read-write bind whose source lies inside a directory the sandbox can write is refused."
# description: "bwrap resolves a bind's source for every command: a source the sandbox can rename or replace with a symlink lets it choose the next mount. Allowed only with dest = src, directly under that directory, with no symlink on the way."
# custom:
#   id: R3
#   name: WritableBindInsideWritableDir
#   level: error
#   security: true
deny contains v("R3", sprintf("read-write bind source %q lies inside %s (%q): a command could rename it or swap in a symlink; use dest = src directly under that directory, with no symlink on the way", [b.src, w.what, w.dir]), ["binds", b.index, "src"]) if {
	some b in input.facts.binds
	b.src_abs
	b.readonly == false
	some a in ancestors(bind_src(b))
	some w in writable_by_dir[a]
	not w.index == b.index
	not r3_exempt(b, w.dir)
}

r3_exempt(b, dir) if {
	b.dest == b.src
	not b.src_has_link
	bind_src(b) != dir
	dirname(bind_src(b)) == dir
}

# R4: bwrap must never create a mount point on the host: a dest must exist
# or sit under a tmpfs of the sandbox's own (/tmp).
sandbox_tmpfs := {"/tmp"}

# METADATA
# title: "A bind destination must already exist on the host or lie under a tmpfs of the sandbox."
# description: "bwrap would create a missing mount point on the host (an empty file or directory left behind under a writable bind) or fail at run time under the read-only root. Create the destination first, or use a destination under /tmp."
# custom:
#   id: R4
#   name: BindDestMustExist
#   level: error
#   security: true
deny contains v("R4", sprintf("bind dest %q does not exist on the host; bwrap would create it there (or fail on the read-only root): create it first, or use a dest under /tmp", [b.dest]), ["binds", b.index, "dest"]) if {
	some b in input.facts.binds
	b.dest_abs
	not missing(b.src_kind)
	b.dest_kind == "absent"
	not b.dest_has_link
	not r4_inside_sandbox_tmpfs(b.dest)
}

# A missing dest is fine only when the mount that holds it is a tmpfs of
# the sandbox, not a read-write bind of a host directory (the working
# directory, another bind, the profile home) mounted over that tmpfs.
r4_inside_sandbox_tmpfs(p) if {
	some t in sandbox_tmpfs
	t != p
	within(p, t)
	not r4_inside_host_writable(p)
}

r4_inside_host_writable(p) if {
	some a in ancestors(p)
	writable_by_dir[a]
}

bind_dests := {o.dest | some o in input.facts.binds; o.dest_abs}

r4_inside_host_writable(p) if {
	some a in ancestors(p)
	a != p
	bind_dests[a]
}

# R10: a dest that is a symlink (bwrap >= 0.12 refuses it, older versions
# mount over the link's target), or /, /proc, /dev or a parent of them.
# METADATA
# title: "A bind destination that is a symlink on the host, or /, /proc, /dev or a parent of them, is refused."
# description: "bwrap ≥ 0.12 refuses symlink destinations and older versions mount over the link's target; covering /, /proc or /dev would undo the sandbox's own filesystem. Pick another destination."
# custom:
#   id: R10
#   name: BindDestForbidden
#   level: error
#   security: true
deny contains v("R10", sprintf("bind dest %q is a symlink or has one on the way (resolves to %q): use the real path", [b.dest, b.dest_real]), ["binds", b.index, "dest"]) if {
	some b in input.facts.binds
	b.dest_abs
	b.dest_has_link
}

deny contains v("R10", sprintf("bind dest %q would cover %s", [b.dest, concat(" and ", covered)]), ["binds", b.index, "dest"]) if {
	some b in input.facts.binds
	b.dest_abs
	covered := [sys | some sys in ["/", "/proc", "/dev", "/tmp"]; within(sys, b.dest)]
	count(covered) > 0
}

deny contains v("R10", sprintf("bind dest %q lies inside %s, which the sandbox owns", [b.dest, sys]), ["binds", b.index, "dest"]) if {
	some b in input.facts.binds
	b.dest_abs
	some sys in ["/proc", "/dev"]
	b.dest != sys
	within(b.dest, sys)
}

# R10: a dest elsewhere than its source must not cover what the sandbox
# protects or needs: a hidden path (its mask would land in the bound tree,
# failing on a read-only bind or creating a mount point on the host), the
# Hermes home, the working directory, /run/user/<uid> or /tmp.
deny contains v("R10", sprintf("bind dest %q (from %q) would cover %s: bind it at its own path, or choose a dest that holds none of them", [b.dest, b.src, concat(", ", sort(covered))]), ["binds", b.index, "dest"]) if {
	some b in input.facts.binds
	b.dest_abs
	b.src_abs
	b.dest != b.src
	not b.dest in {"/", "/proc", "/dev", "/tmp"}
	covered := b.dest_covers
	count(covered) > 0
}

# R10: two binds to the same dest: the later would silently cover the
# earlier (a read-only bind would undo a read-write one, or the reverse).
deny contains v("R10", sprintf("bind dest %q is also the dest of binds[%d]: the later bind would cover the earlier; keep one", [b.dest, b.dest_duplicate_of]), ["binds", b.index, "dest"]) if {
	some b in input.facts.binds
	b.dest_duplicate_of >= 0
}
