package bounded

import (
	"os"
	"syscall"
)

// A program linked with cgo (bwpolicy is: the network packages OPA
// imports pull it in) starts each thread of the Go runtime with
// pthread_create, and the C library gives each thread a stack of the
// size RLIMIT_STACK had when the program started (8 MiB by default,
// 32 MiB when unlimited). That is address space, not memory: a child
// whose address-space limit leaves room for an arena and little more
// (a small bound, most of it in use) could not start a thread the
// runtime needs — the scheduler starts them on a busy machine, with
// no memory used at all — and died of "pthread_create failed" before
// its evaluation began, which read as the memory bound crossed with no
// position. Worse, each thread that calls the C library's malloc gets
// an arena of its own, 64 MiB of address space (up to eight per core).
// So a child runs with one malloc arena (oneMallocArena, in the
// environment the parent gives it) and a small RLIMIT_STACK (it
// re-executes itself once with it: smallStacks), and every thread it
// starts costs threadStack of address space.
const (
	// threadStack is the RLIMIT_STACK of a child: the stack of each
	// thread it starts, and of its main thread. The Go runtime runs
	// goroutines on stacks of its own; a thread's stack holds only the
	// runtime's system stack, which needs tens of KiB.
	threadStack = 1 << 20
	// envStacks marks a child that already runs with small stacks, or,
	// set to envStacksKept by a test's parent, one that must keep the
	// stacks it inherited (the control of the test).
	envStacks     = "BWPOLICY_BOUNDED_STACKS"
	envStacksKept = "kept"
)

// oneMallocArena is the environment that gives a child one malloc arena
// (the C library reads it at start: GLIBC_TUNABLES, and its older
// spelling).
var oneMallocArena = []string{"GLIBC_TUNABLES=glibc.malloc.arena_max=1", "MALLOC_ARENA_MAX=1"}

// keepThreadStacks makes Start's children keep the stack size they
// inherit and the C library's default arenas (the control of
// TestThreadsUnderTheBound).
var keepThreadStacks bool

// smallStacks re-executes the child with RLIMIT_STACK at most
// threadStack, once; when it cannot (no /proc, a limit it may not
// lower), the child goes on with the stacks it has: its threads then
// reserve more address space, which can only end an evaluation early,
// never let one past its bound.
func smallStacks() {
	if os.Getenv(envStacks) != "" {
		return
	}
	var r syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_STACK, &r) != nil {
		return
	}
	if r.Cur != ^uint64(0) && r.Cur <= threadStack {
		return
	}
	// Cur > threadStack here, so the hard limit is above it too.
	small := syscall.Rlimit{Cur: threadStack, Max: r.Max}
	if syscall.Setrlimit(syscall.RLIMIT_STACK, &small) != nil {
		return
	}
	os.Setenv(envStacks, "1")
	if syscall.Exec("/proc/self/exe", os.Args, os.Environ()) != nil {
		// The exec failed: the limit goes back to what it was, so that
		// nothing this process starts inherits it unawares.
		syscall.Setrlimit(syscall.RLIMIT_STACK, &r)
	}
}
