package bounded

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// grace is how long past the time bound the parent waits for the child
// to report it before killing the child itself.
const grace = 2 * time.Second

// Child is a running bounded child. Its calls are sequential.
type Child struct {
	mu     sync.Mutex
	lim    Limits
	cmd    *exec.Cmd
	codec  *codec
	in     *os.File // the write end of the requests pipe
	stderr *headBuffer
	where  *os.File      // the page the child publishes its position in (nil if none)
	done   chan struct{} // closed when the process has been waited for
	dead   error         // why the child can serve no more calls
}

// Executable is the program a child runs (bwpolicy itself, or the test
// binary in tests).
var Executable = os.Executable

// Start starts a child of kind (registered with Handle) under lim.
func Start(kind string, lim Limits) (*Child, error) {
	lim = lim.orDefault()
	exe, err := Executable()
	if err != nil {
		return nil, fmt.Errorf("bounded evaluation: %w", err)
	}
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, err
	}
	var args []string
	if strings.HasSuffix(exe, ".test") {
		args = []string{"-test.run=^$"} // a test binary without ServeIfChild runs nothing
	}
	cmd := exec.Command(exe, args...)
	var env []string
	if lim.Env {
		env = os.Environ()
	}
	cmd.Env = append(env, envKind+"="+kind, envTime+"="+strconv.FormatInt(int64(lim.Time), 10),
		envMemory+"="+strconv.FormatInt(lim.MemoryMiB, 10))
	if keepThreadStacks {
		cmd.Env = append(cmd.Env, envStacks+"="+envStacksKept)
	} else {
		cmd.Env = append(cmd.Env, oneMallocArena...)
	}
	page := newWherePage()
	cmd.ExtraFiles = []*os.File{reqR, repW, page}
	c := &Child{lim: lim, cmd: cmd, in: reqW, stderr: &headBuffer{max: 8 << 10}, where: page, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = c.stderr, c.stderr
	err = cmd.Start()
	reqR.Close()
	repW.Close()
	if err != nil {
		reqW.Close()
		repR.Close()
		if page != nil {
			page.Close()
		}
		return nil, fmt.Errorf("bounded evaluation: %w", err)
	}
	c.codec = newCodec(repR, reqW)
	go func() {
		cmd.Wait()
		repR.Close()
		close(c.done)
	}()

	return c, nil
}

// Call sends one call and waits for its reply, at most the time bound
// plus a grace period. A crossed bound is an *Exceeded, an error of the
// handler a *Remote; after an *Exceeded the child is gone and every
// later call fails.
func (c *Child) Call(op string, body []byte) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead != nil {
		return nil, c.dead
	}
	if err := c.codec.enc.Encode(request{Op: op, Body: body}); err != nil {
		return nil, c.fail(c.died())
	}
	got := make(chan reply, 1)
	bad := make(chan error, 1)
	go func() {
		var r reply
		if err := c.codec.dec.Decode(&r); err != nil {
			bad <- err
			return
		}
		got <- r
	}()
	timer := time.NewTimer(c.lim.Time + grace)
	defer timer.Stop()
	select {
	case r := <-got:
		switch {
		case r.Exceeded != nil:
			<-c.done
			return nil, c.fail(r.Exceeded)
		case r.Err != nil:
			return nil, r.Err
		}
		return r.Body, nil
	case <-bad:
		return nil, c.fail(c.died())
	case <-timer.C:
		c.cmd.Process.Kill()
		<-c.done
		return nil, c.fail(&Exceeded{Bound: Time, Limit: c.lim.Time.String(), Where: c.lastWhere()})
	}
}

// fail marks the child unusable with err and returns err.
func (c *Child) fail(err error) error {
	c.dead = err
	c.in.Close()
	return err
}

// died waits for a child that stopped answering and says why: running
// out of address space (the runtime's fatal error, or a thread it could
// not start, under the RLIMIT_AS the watchdog sets) is the memory bound;
// anything else a crash, with the runtime's first line. Either names the
// position the child last published.
func (c *Child) died() error {
	select {
	case <-c.done:
	case <-time.After(grace):
		c.cmd.Process.Kill()
		<-c.done
	}
	out := c.stderr.String()
	mem := fmt.Sprintf("%d MiB", c.lim.MemoryMiB)
	if outOfMemory(out) {
		return &Exceeded{Bound: Memory, Limit: mem, Where: c.lastWhere()}
	}
	detail := "exit " + c.cmd.ProcessState.String()
	if i := strings.Index(out, "fatal error: "); i >= 0 {
		detail = firstLine(out[i:])
	} else if s := strings.TrimSpace(out); s != "" {
		detail = firstLine(s)
	}
	return &Exceeded{Bound: Crash, Limit: mem, Detail: detail, Where: c.lastWhere()}
}

// outOfMemory says whether a dead child's output is the Go runtime (or
// the C library starting a thread for it) failing for want of memory.
func outOfMemory(out string) bool {
	for _, s := range []string{"out of memory", "cannot allocate memory", "pthread_create failed", "errno=12",
		"address space", "failed to allocate aligned heap memory", "cannot map pages"} {
		if strings.Contains(out, s) {
			return true
		}
	}
	return false
}

// lastWhere is the position the child last published, once it is gone.
func (c *Child) lastWhere() Where {
	return readWherePage(c.where)
}

// Close ends the child (it exits when its requests pipe closes).
func (c *Child) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead == nil {
		c.dead = errors.New("bounded evaluation: child closed")
		c.in.Close()
	}
	select {
	case <-c.done:
	case <-time.After(grace):
		c.cmd.Process.Kill()
		<-c.done
	}
	if c.where != nil {
		c.where.Close()
		c.where = nil
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// headBuffer keeps the first max bytes written to it (a runtime's fatal
// error comes first; its goroutine dump after).
type headBuffer struct {
	mu  sync.Mutex
	b   bytes.Buffer
	max int
}

func (t *headBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if room := t.max - t.b.Len(); room > 0 {
		if len(p) > room {
			t.b.Write(p[:room])
		} else {
			t.b.Write(p)
		}
	}
	return len(p), nil
}

func (t *headBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.b.String()
}
