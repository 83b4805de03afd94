package bounded

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// arenaBytes is the unit the Go runtime reserves its heap's address
// space in (heapArenaBytes on 64-bit Linux): a heap that grows by a
// page may reserve 64 MiB of address space, mostly never resident.
const arenaBytes = 64 << 20

// arenaMeta is the address space the runtime maps beside an arena it
// reserves (the arena's metadata), a thread's stack and the like: the
// least address space left to the child is an arena and this.
const arenaMeta = 16 << 20

// usage is what the watchdog reads of the child's memory.
type usage struct {
	// vm is the address space in use (VmSize), resident the resident
	// memory (VmRSS), both from /proc/self/statm.
	vm, resident uint64
	// released is heap the Go runtime has given back to the kernel but
	// keeps mapped: it becomes resident again without the address space
	// growing, so it counts against what is left of the bound.
	released uint64
	// heap is all the heap the runtime has mapped (in use, free,
	// released): the rest of its last 64 MiB arena is reserved address
	// space the heap grows into without the address space growing, and
	// counts against what is left too.
	heap uint64
}

// unmappedArena is the part of the heap's last arena not mapped yet.
func (u usage) unmappedArena() uint64 {
	return (arenaBytes - u.heap%arenaBytes) % arenaBytes
}

// addressLimit is the RLIMIT_AS that lets the child's resident memory
// grow to the bound mem and not much further, whatever one allocation
// asks for: the address space in use now, plus what is left of the
// bound (less the heap that can become resident again without the
// address space growing: released, and the unmapped rest of the last
// arena), and never less than one arena (and its metadata), which the
// runtime must be able to reserve to grow its heap at all. So one allocation larger than
// what is left, and larger than an arena, fails inside the call (a
// string doubled, a huge array), and the runtime dies of "out of
// memory", which the parent reads as the memory bound; one of at most an
// arena can take the child past the bound by what the arena exceeds what
// is left (at most 80 MiB), and the watchdog's next sample stops it.
func addressLimit(u usage, mem uint64) uint64 {
	left := uint64(0)
	if used := u.resident + u.released + u.unmappedArena(); used < mem {
		left = mem - used
	}
	return u.vm + max(left, arenaBytes+arenaMeta)
}

// addressLimiter sets the soft RLIMIT_AS of the process (the hard
// limit stays: the watchdog raises the soft one as memory is freed),
// rounded down to a MiB, and only when that changes.
type addressLimiter struct {
	hard, last uint64
}

func newAddressLimiter() *addressLimiter {
	var r syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &r) != nil {
		return nil
	}
	return &addressLimiter{hard: r.Max}
}

// set sets the soft limit to limit (at most the hard limit).
func (a *addressLimiter) set(limit uint64) {
	if a == nil {
		return
	}
	limit = min(limit&^(1<<20-1), a.hard)
	if limit == a.last {
		return
	}
	if syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: limit, Max: a.hard}) == nil {
		a.last = limit
	}
}

// readStatm reads the address space and resident memory of the process
// from /proc/self/statm (its first two fields, in pages); zeros if
// unknown.
func readStatm(statm *os.File) (vm, resident uint64) {
	if statm == nil {
		return 0, 0
	}
	var buf [128]byte
	n, _ := statm.ReadAt(buf[:], 0)
	f := strings.Fields(string(buf[:n]))
	if len(f) < 2 {
		return 0, 0
	}
	size, err1 := strconv.ParseUint(f[0], 10, 64)
	rss, err2 := strconv.ParseUint(f[1], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0
	}
	page := uint64(os.Getpagesize())
	return size * page, rss * page
}
