# Checks of what this machine and this bwpolicy can do for the settings:
# bwrap's options, the kernel's Landlock ABI, the architecture's seccomp
# filter, and the names protect.allow and seccomp.allow may use
# (input.known). They run here, in the policy stage, so that emit only
# builds the invocation and never finds anything wrong.
package bwpolicy.rules

host_warn(rule, msg, path) := object.union(v(rule, msg, path), {"host": true})

bwrap_found if input.facts.bwrap.path != ""

# S10: without bwrap nothing runs.
# METADATA
# title: "Without a working bwrap no command runs."
# description: "Install bubblewrap: apt install bubblewrap, dnf install bubblewrap or pacman -S bubblewrap."
# custom:
#   id: S10
#   name: NeverUnsandboxed
#   level: error
#   security: true
warn contains host_warn("S10", "bwrap was not found: no command can run until it is installed (apt install bubblewrap | dnf install bubblewrap | pacman -S bubblewrap)", []) if {
	not bwrap_found
}

# H1: nested user namespaces stay possible with a bwrap older than 0.8.0.
# METADATA
# title: "Nested user namespaces are disabled where bwrap supports it."
# description: "--unshare-user --disable-userns."
# custom:
#   id: H1
#   name: DisableUserns
#   level: error
#   security: true
warn contains host_warn("H1", "this bwrap lacks --disable-userns (needs 0.8.0+): commands can create nested user namespaces", []) if {
	bwrap_found
	not input.facts.bwrap.options["--disable-userns"]
}

# S3: a bwrap older than 0.7.0 cannot bound a tmpfs.
# METADATA
# title: "The host root is read-only; /dev, /proc and /tmp are the sandbox's own."
# description: "/tmp is fresh for every command."
# custom:
#   id: S3
#   name: Filesystem
#   level: error
#   security: true
warn contains host_warn("S3", "this bwrap lacks --size (needs 0.7.0+): /tmp, /dev/shm and the masks are unbounded tmpfs, each may fill half of RAM", []) if {
	bwrap_found
	not input.facts.bwrap.options["--size"]
}

# H2: no seccomp filter for this architecture.
# METADATA
# title: "A seccomp deny list blocks terminal injection, keyrings, ptrace, bpf, the mount API and namespace changes."
# description: "seccomp.allow may relax named groups; an unknown group name is an error."
# custom:
#   id: H2
#   name: Seccomp
#   level: error
#   security: true
warn contains host_warn("H2", "no seccomp filter: this architecture is not supported", []) if {
	input.facts.arch == ""
}

# H3: what this kernel's Landlock cannot enforce is said.
warn contains host_warn("H3", sprintf("this kernel's Landlock ABI is %d (< 6): abstract Unix sockets and signals outside the sandbox are not scoped", [input.facts.landlock_abi]), []) if {
	input.facts.landlock_abi < 6
}

warn contains host_warn("H3", sprintf("this kernel's Landlock ABI is %d (< 4): the TCP port allowlist is NOT enforced", [input.facts.landlock_abi]), ["network"]) if {
	input.facts.landlock_abi < 4
	some k in ["tcp_connect", "tcp_bind"]
	object.get(object.get(input.settings, "network", {}), k, null) != null
}

# H9: protect.allow gives up a protection by name: a name that protects
# nothing is an error (a typo must not read as a protection given up),
# a known one a warning.
deny contains v("H9", sprintf("%q is not a protected entry (known: %s)", [name, concat(", ", input.known.protect_names)]), ["protect", "allow", i]) if {
	some i, name in object.get(object.get(input.settings, "protect", {}), "allow", [])
	not name in input.known.protect_names
}

warn contains v("H9", sprintf("commands may change %s, which runs outside the sandbox later", [name]), ["protect", "allow", i]) if {
	some i, name in object.get(object.get(input.settings, "protect", {}), "allow", [])
	name in input.known.protect_names
}

# H2: seccomp.allow relaxes groups by name. An unknown name, or a group
# relaxed without the ones it needs relaxed with it, is an error; each
# group relaxed is a warning.
seccomp_relaxed := object.get(object.get(input.settings, "seccomp", {}), "allow", [])

seccomp_group_names := [g.name | some g in input.known.seccomp_groups]

seccomp_allow_errors contains sprintf("seccomp: unknown group %q (valid groups: %s)", [name, concat(", ", seccomp_group_names)]) if {
	some name in seccomp_relaxed
	not name in seccomp_group_names
}

seccomp_allow_errors contains sprintf("seccomp: relaxing group %q also requires relaxing %q (%s)", [g.name, other, g.relax_reason]) if {
	some g in input.known.seccomp_groups
	g.name in seccomp_relaxed
	some other in g.relax_with
	not other in seccomp_relaxed
}

deny contains v("H2", msg, ["seccomp", "allow"]) if {
	some msg in seccomp_allow_errors
}

warn contains v("H2", sprintf("seccomp group %q is relaxed: those system calls reach the kernel", [name]), ["seccomp", "allow"]) if {
	count(seccomp_allow_errors) == 0
	some name in seccomp_relaxed
}
