# R12: limits. Negative values are errors; values above the inherited
# hard limit are clamped to it, with a warning.
package bwpolicy.rules

limit_names := ["memory_mb", "cpu_seconds", "max_procs", "tmp_mb"]

# METADATA
# title: "Resource limits: a negative value is an error; a value above the inherited hard limit is clamped, with a warning; tmp_mb 0 (unbounded tmpfs) is warned."
# description: "memory_mb, cpu_seconds, max_procs and tmp_mb must be ≥ 0 (0 disables a limit; an unbounded /tmp or /dev/shm may fill half of RAM); a limit cannot be raised above what the process inherited."
# custom:
#   id: R12
#   name: Limits
#   level: error
#   security: true
deny contains v("R12", sprintf("%s is negative (%d)", [name, input.settings[name]]), [name]) if {
	some name in limit_names
	input.settings[name] < 0
}

mib := 1048576

warn contains v("R12", "tmp_mb is 0: /tmp and /dev/shm are tmpfs without a size bound, each may fill half of the machine's RAM whatever memory_mb says", ["tmp_mb"]) if {
	input.settings.tmp_mb == 0
}

warn contains v("R12", sprintf("memory_mb %d is above the inherited hard limit (%d MiB): clamped", [input.settings.memory_mb, input.facts.hard_as / mib]), ["memory_mb"]) if {
	input.settings.memory_mb * mib > input.facts.hard_as
}

warn contains v("R12", sprintf("cpu_seconds %d is above the inherited hard limit (%d): clamped", [input.settings.cpu_seconds, input.facts.hard_cpu]), ["cpu_seconds"]) if {
	input.settings.cpu_seconds > input.facts.hard_cpu
}

warn contains v("R12", sprintf("max_procs %d (+2 for bwrap's init and the shell) is above the inherited hard limit (%d): clamped", [input.settings.max_procs, input.facts.hard_nproc]), ["max_procs"]) if {
	input.settings.max_procs + 2 > input.facts.hard_nproc
}

# METADATA
# title: "Resource limits are set before bwrap starts."
# description: "RLIMIT_NPROC is set inside the sandbox's user namespace; kernels before 5.14 count it across the whole machine, and the kernel never applies it to root, so it is skipped in both cases with this warning."
# custom:
#   id: S1
#   name: LimitsBeforeBwrap
#   level: warning
#   security: true
warn contains object.union(v("S1", "this kernel counts RLIMIT_NPROC per user across the machine (before 5.14): max_procs is not applied", ["max_procs"]), {"host": true}) if {
	input.settings.max_procs > 0
	not input.facts.nproc_userns
	input.facts.uid != 0
}

warn contains object.union(v("S1", "compiling as root: the kernel never applies RLIMIT_NPROC to root, so max_procs is not applied (run agents as an ordinary user)", ["max_procs"]), {"host": true}) if {
	input.settings.max_procs > 0
	input.facts.uid == 0
}
