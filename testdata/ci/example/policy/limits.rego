# METADATA
# title: Memory cap
# description: Sandboxes in this organisation get at most 4 GiB of address space per process.
package bwpolicy.custom.limits

deny contains v if {
	input.settings.memory_mb > 4096
	v := {"msg": "memory_mb above the 4096 allowed here", "path": ["memory_mb"]}
}

warn contains v if {
	input.settings.memory_mb == 0
	v := {"msg": "memory_mb: 0 disables the memory limit", "path": ["memory_mb"], "rule": "no-memory-limit"}
}
