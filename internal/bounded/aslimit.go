package bounded

import (
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
)

// slack is the address space the child may map beyond what is left of
// its memory bound: a thread's stack, the runtime's own metadata. It is
// the most one allocation can take the child's resident memory past the
// bound before the allocation fails.
const slack = 16 << 20

// arenaBytes is the unit the Go runtime reserves its heap's address
// space in (heapArenaBytes on 64-bit Linux).
const arenaBytes = 64 << 20

// maxReserve caps the heap reserved at the start (reserveHeap): a larger
// bound is enforced with the heap's 64 MiB arenas reserved as needed,
// so an evaluation may be stopped up to an arena short of the bound.
const maxReserve = 1 << 30

// reserveHeap has the Go runtime map, once, the heap an evaluation may
// use under the bound, and give it back to the kernel at once: it stays
// mapped (in the address space) and released (not resident, not
// touched: a few milliseconds). The runtime reserves its heap in 64 MiB
// arenas, mostly not resident, so an address-space limit of "what is
// left of the bound" alone would refuse an evaluation far below it; with
// the heap reserved beforehand, the evaluation's heap grows into it
// without new address space, and the limit can be what is left, plus
// slack. Not under strict overcommit (mode 2), where the mapping would
// count against the machine's commit limit.
func reserveHeap(mem, resident uint64) {
	if mem <= resident {
		return
	}
	if b, err := os.ReadFile("/proc/sys/vm/overcommit_memory"); err != nil || strings.TrimSpace(string(b)) == "2" {
		return
	}
	// An arena's part not mapped yet (at most one arena) is room the
	// heap grows into without the address space growing: it is left out.
	if mem-resident <= arenaBytes {
		return
	}
	n := min(mem-resident-arenaBytes, maxReserve)
	b := make([]byte, n)
	runtime.KeepAlive(b)
	b = nil
	debug.FreeOSMemory()
}

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
// grow to the bound mem and no further, whatever one allocation asks
// for: the address space in use now, plus what is left of the bound
// (less the heap that can become resident again without the address
// space growing: released, reserveHeap's included, and the unmapped
// rest of the last arena), plus slack. The watchdog sets it at every sample, so a single builtin
// call that asks for more than is left (a string doubled, a huge array)
// fails inside the call and the runtime dies of "out of memory", which
// the parent reads as the memory bound.
func addressLimit(u usage, mem uint64) uint64 {
	left := uint64(0)
	if used := u.resident + u.released + u.unmappedArena(); used < mem {
		left = mem - used
	}
	return u.vm + left + slack
}

// setAddressLimit sets the soft RLIMIT_AS of the process (the hard
// limit stays: the watchdog raises the soft one as memory is freed).
func setAddressLimit(limit uint64) {
	var r syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &r) != nil {
		return
	}
	if r.Max != ^uint64(0) && limit > r.Max {
		limit = r.Max
	}
	r.Cur = limit
	_ = syscall.Setrlimit(syscall.RLIMIT_AS, &r)
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
