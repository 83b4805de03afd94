# R12: limits. Negative values are errors; values above the inherited
# hard limit are clamped to it, with a warning.
package bwpolicy.rules

limit_names := ["memory_mb", "cpu_seconds", "max_procs", "tmp_mb"]

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

warn contains object.union(v("S1", "this kernel counts RLIMIT_NPROC per user across the machine (before 5.14): max_procs is not applied", ["max_procs"]), {"host": true}) if {
	input.settings.max_procs > 0
	not input.facts.nproc_userns
	input.facts.uid != 0
}

warn contains object.union(v("S1", "compiling as root: the kernel never applies RLIMIT_NPROC to root, so max_procs is not applied (run agents as an ordinary user)", ["max_procs"]), {"host": true}) if {
	input.settings.max_procs > 0
	input.facts.uid == 0
}
