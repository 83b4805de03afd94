package compiler

// This file holds the size bounds of the sandbox's tmpfs mounts (S3): a
// tmpfs without one may take half of the machine's RAM, whatever
// memory_mb says.

import (
	"fmt"
	"strconv"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// maskTmpfsBytes bounds the tmpfs that masks a hidden directory: it only
// has to hold nothing, but a command may write there (the writes stay in
// the sandbox), so a few pages.
const maskTmpfsBytes = 16 << 10

// cgroupMemoryFactor is memory.max of the sandbox's own cgroup (where the
// host delegates a cgroup v2 memory controller) in units of memory_mb:
// room for a few processes at their RLIMIT_AS, tmpfs data and page cache
// included (cgroup.MemoryFactor, in runtime/cgroup, documents it for callers).
const cgroupMemoryFactor = 4

// tmpfs emits a tmpfs at dest bounded to size bytes with bwrap's --size
// (which applies to the next --tmpfs only). size 0, or a bwrap without
// --size (warned by the policy stage), leaves it unbounded. Every tmpfs the compiler
// emits goes through here.
func (e *emitter) tmpfs(rule invocation.Reason, reason, source, dest string, size uint64) {
	if size == 0 || !e.hasSize() {
		e.p.add(rule, reason+" (no size bound)", source, "--tmpfs", dest)
		return
	}
	e.p.requires["--size"] = true
	e.p.add(rule, reason+" (at most "+sizeText(size)+")", source, "--size", strconv.FormatUint(size, 10), "--tmpfs", dest)
}

// hasSize reports whether this bwrap takes --size; without bwrap nothing
// runs, so the plan is written for one that does.
func (e *emitter) hasSize() bool {
	return e.f.Bwrap.Path == "" || e.f.Bwrap.Has("--size")
}

// tmpBytes is the bound of /tmp and /dev/shm: tmp_mb, or 0 when it is 0
// or this bwrap cannot bound a tmpfs.
func (e *emitter) tmpBytes() uint64 {
	if !e.hasSize() {
		return 0
	}
	return e.st.res.Settings.TmpBytes()
}

// sizeText renders a byte count in KiB or MiB.
func sizeText(n uint64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}
