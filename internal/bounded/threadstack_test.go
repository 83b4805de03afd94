package bounded

import (
	"encoding/binary"
	"os"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	// Linked with cgo as bwpolicy is: the runtime starts its threads
	// with pthread_create, each with a stack of RLIMIT_STACK's size.
	_ "runtime/cgo"
)

// threadsOp starts n threads at once (goroutines locked to their
// threads, all blocked until the last has started) and replies with the
// address space that took (VmSize after less before, 8 bytes).
func threadsOp(n int) ([]byte, error) {
	statm, err := os.Open("/proc/self/statm")
	if err != nil {
		return nil, err
	}
	defer statm.Close()
	before, _ := readStatm(statm)
	var started sync.WaitGroup
	release := make(chan struct{})
	started.Add(n)
	for i := 0; i < n; i++ {
		go func() {
			runtime.LockOSThread()
			started.Done()
			<-release
		}()
	}
	started.Wait()
	after, _ := readStatm(statm)
	close(release)
	var out [8]byte
	binary.LittleEndian.PutUint64(out[:], after-before)
	return out[:], nil
}

// TestThreadsUnderTheBound: a child that starts many threads at once (a
// busy machine makes the scheduler start them; here 24 locked
// goroutines) under a small memory bound, where the address-space limit
// leaves little more than an arena, is not a crossed bound: each thread
// reserves a stack of at most threadStack. Before, each reserved 8 MiB
// (the inherited RLIMIT_STACK), the limit refused the tenth, and the
// child died of "pthread_create failed" before its evaluation began,
// reported as the memory bound crossed with no position (CI: check of a
// hostile rule at 64 MiB, on a loaded machine). The control: a child
// that keeps the inherited 8 MiB stacks (and no address-space limit, so
// that it lives to say) reserves 8 MiB a thread.
func TestThreadsUnderTheBound(t *testing.T) {
	const n = 24
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_STACK, &old); err != nil {
		t.Fatal(err)
	}
	// The children inherit 8 MiB, the usual default, whatever the
	// shell that started the tests set.
	inherited := syscall.Rlimit{Cur: 8 << 20, Max: old.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_STACK, &inherited); err != nil {
		t.Fatal(err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_STACK, &old)
	took := func(op string, kept bool) uint64 {
		t.Helper()
		keepThreadStacks = kept
		defer func() { keepThreadStacks = false }()
		c := start(t, Limits{Time: 10 * time.Second, MemoryMiB: 64})
		got, err := c.Call(op, nil)
		if err != nil {
			t.Fatalf("%s (inherited stacks kept: %v): %d threads under a 64 MiB bound: %v", op, kept, n, err)
		}
		return binary.LittleEndian.Uint64(got)
	}
	small := took("threads", false)
	t.Logf("%d threads: %d MiB of address space", n, small>>20)
	if want := uint64(n * (threadStack + 1<<20)); small > want {
		t.Errorf("%d threads took %d MiB of address space, want at most %d MiB", n, small>>20, want>>20)
	}
	kept := took("threads-unlimited", true)
	t.Logf("control: %d threads with inherited stacks: %d MiB of address space", n, kept>>20)
	if kept < n*8<<20 {
		t.Errorf("control: %d threads with inherited stacks took only %d MiB (the case does not test the stacks)", n, kept>>20)
	}
}
