package bounded

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// The environment that makes a bwpolicy process a child, and its bounds.
const (
	envKind   = "BWPOLICY_BOUNDED_CHILD"
	envTime   = "BWPOLICY_BOUNDED_TIME_NS"
	envMemory = "BWPOLICY_BOUNDED_MEMORY_MIB"
)

// The child's exit statuses.
const (
	exitExceeded = 3  // a bound was crossed and reported
	exitNoKind   = 70 // no handler of the kind the parent asked for
)

// Handler serves the calls of one kind of child: op and body in, the
// reply's body or an error out.
type Handler func(op string, body []byte) ([]byte, error)

var handlers = map[string]Handler{}

// Handle registers the handler of a kind of child (in an init function
// of the package that owns the work).
func Handle(kind string, h Handler) { handlers[kind] = h }

// ServeIfChild serves the parent's calls and exits when this process is
// a bounded child; it returns at once otherwise. bwpolicy's main, and
// the TestMain of every test binary that evaluates untrusted input,
// call it first.
func ServeIfChild() {
	if kind := os.Getenv(envKind); kind != "" {
		smallStacks()
		os.Exit(serve(kind))
	}
}

// The child's state, read by the watchdog.
var (
	// addressLimitOff stops the watchdog setting the address-space
	// limit (the control of a test: what one allocation does without it).
	addressLimitOff atomic.Bool
	callStart       atomic.Int64 // unix nanoseconds the current call (or Restart) began; 0 when idle
	where           atomic.Pointer[Where]
)

// Mark records where the evaluation is (the rule entered, the profile
// file being read), for the report of a crossed bound. It is cheap
// enough to call per rule.
func Mark(w *Where) {
	where.Store(w)
	if shared != nil && w != nil {
		shared.publish(w)
	}
}

// Restart starts the time bound afresh inside a call (bwpolicy test:
// the bound is per test).
func Restart() {
	if callStart.Load() != 0 {
		callStart.Store(time.Now().UnixNano())
	}
}

func serve(kind string) int {
	h, ok := handlers[kind]
	if !ok {
		fmt.Fprintf(os.Stderr, "bwpolicy: no bounded evaluator %q\n", kind)
		return exitNoKind
	}
	lim := Limits{}
	if n, err := strconv.ParseInt(os.Getenv(envTime), 10, 64); err == nil {
		lim.Time = time.Duration(n)
	}
	if n, err := strconv.ParseInt(os.Getenv(envMemory), 10, 64); err == nil {
		lim.MemoryMiB = n
	}
	lim = lim.orDefault()
	for _, k := range []string{envKind, envTime, envMemory, envStacks} {
		os.Unsetenv(k)
	}
	mem := uint64(lim.MemoryMiB) << 20
	// The collector's soft limit sits at three quarters of the bound, so
	// that garbage is collected before the process's resident memory
	// (what the watchdog bounds) reaches the bound; only a live heap near
	// the bound takes it there.
	debug.SetGCPercent(100)
	debug.SetMemoryLimit(int64(mem / 4 * 3))
	// An evaluation is one goroutine: more processors would only add
	// threads, each a stack of address space out of the bound.
	if runtime.GOMAXPROCS(0) > 2 {
		runtime.GOMAXPROCS(2)
	}
	mapWherePage(5)
	in := os.NewFile(3, "requests")
	out := os.NewFile(4, "replies")
	if in == nil || out == nil {
		fmt.Fprintln(os.Stderr, "bwpolicy: bounded child without its pipes")
		return exitNoKind
	}
	c := newCodec(in, out)
	var mu sync.Mutex // one writer: the loop or the watchdog
	ready := make(chan struct{})
	go watchdog(lim, mem, ready, func(e *Exceeded) {
		mu.Lock() // never unlocked: the process exits
		_ = c.enc.Encode(reply{Exceeded: e})
		os.Exit(exitExceeded)
	})
	<-ready // the address-space limit holds before the first call
	for {
		var req request
		if err := c.dec.Decode(&req); err != nil {
			return 0 // the parent closed the pipe
		}
		Mark(&Where{})
		callStart.Store(time.Now().UnixNano())
		body, err := h(req.Op, req.Body)
		callStart.Store(0)
		rep := reply{Body: body}
		if err != nil {
			var r *Remote
			if !errors.As(err, &r) {
				r = &Remote{Message: err.Error()}
			}
			rep = reply{Err: r}
		}
		mu.Lock()
		err = c.enc.Encode(rep)
		mu.Unlock()
		if err != nil {
			return 0
		}
	}
}

// watchdog reports a crossed bound: a call running longer than the time
// bound, or the process's resident memory (what a user measures as its
// memory: heap, stacks, runtime and the program's own pages) larger
// than the memory bound, or a live heap (as the last collection
// measured it) larger than it, sampled every two milliseconds. At each
// sample it also sets the address-space limit to what is left of the
// bound (addressLimit), so that one allocation larger than that, made
// between two samples, fails instead of taking the child past the bound.
func watchdog(lim Limits, mem uint64, ready chan<- struct{}, report func(*Exceeded)) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/released:bytes"}, {Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"}, {Name: "/memory/classes/heap/stacks:bytes"}}
	statm, _ := os.Open("/proc/self/statm")
	limiter := newAddressLimiter()
	check := func() {
		metrics.Read(sample)
		vm, rss := readStatm(statm)
		if vm > 0 && !addressLimitOff.Load() {
			heap := metricUint(sample[1]) + metricUint(sample[2]) + metricUint(sample[3]) + metricUint(sample[4]) + metricUint(sample[5])
			limiter.set(addressLimit(usage{vm: vm, resident: rss, released: metricUint(sample[2]), heap: heap}, mem))
		}
		if rss > mem || metricUint(sample[0]) > mem || metricUint(sample[1]) > mem {
			report(&Exceeded{Bound: Memory, Limit: fmt.Sprintf("%d MiB", lim.MemoryMiB), Where: here()})
		}
	}
	check()
	close(ready)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for range tick.C {
		if s := callStart.Load(); s != 0 && time.Since(time.Unix(0, s)) > lim.Time {
			report(&Exceeded{Bound: Time, Limit: lim.Time.String(), Where: here()})
		}
		check()
	}
}

func metricUint(s metrics.Sample) uint64 {
	if s.Value.Kind() == metrics.KindUint64 {
		return s.Value.Uint64()
	}
	return 0
}

// Here is where the evaluation was last marked (Mark): a child's own
// report of a bound its evaluator enforced (OPA's cancellation of a test
// at its timeout) names the same rule the watchdog would.
func Here() Where { return here() }

func here() Where {
	if w := where.Load(); w != nil {
		return *w
	}
	return Where{}
}
