package runtime

import (
	"fmt"
	"os"
	goruntime "runtime"
	"syscall"

	"github.com/bwpolicy/bwpolicy/runtime/landlock"
	"golang.org/x/sys/unix"
)

type waitResult struct {
	status syscall.WaitStatus
	err    error
}

// start forks bwrap with the invocation's arguments and argv, and starts
// reaping it (r.waited). The returned function is to be called once Run
// is over (it unlocks the forking thread).
func (r *runner) start(argv []string) (unlock func(), err error) {
	inv := r.inv
	args := make([]string, 0, len(inv.Bwrap.Args)+len(argv)+2)
	args = append(args, "bwrap")
	args = append(args, inv.Bwrap.Args...)
	args = append(args, "--")
	args = append(args, argv...)

	out := r.stdout
	if r.merged {
		out = r.errW
	}
	files := append([]*os.File{r.stdin, out, r.errW}, r.fds.extra...)
	fdnums := make([]uintptr, len(files))
	for i, f := range files {
		fdnums[i] = f.Fd() // a nil *os.File gives ^0: closed in the child
	}
	attr := &syscall.ProcAttr{
		Env:   filterEnvWarn(r.opts.environ(), inv.Env, r.warn),
		Files: fdnums,
		Sys:   &syscall.SysProcAttr{}, // same process group: terminal job control still reaches bwrap
	}
	if err := r.joinCgroup(attr.Sys); err != nil {
		return func() {}, err
	}

	r.waited = make(chan waitResult, 1)
	unlock = func() {}
	if inv.Landlock == nil {
		// Fork from this goroutine's thread and keep the goroutine on it
		// until bwrap has exited: bwrap's --die-with-parent
		// (PR_SET_PDEATHSIG) fires when the *thread* that forked it
		// exits, and the runtime may end a thread that another goroutine
		// leaves locked.
		goruntime.LockOSThread()
		unlock = goruntime.UnlockOSThread
		if err = r.forkBwrap(args, attr); err == nil {
			go func() { r.waited <- r.waitBwrap() }()
		}
	} else {
		started := make(chan error, 1)
		go func() {
			// Never unlocked: the thread, restricted by Landlock, ends
			// with this goroutine, after bwrap has exited.
			goruntime.LockOSThread()
			if err := landlock.Apply(inv.Landlock, r.warn); err != nil {
				started <- fmt.Errorf("landlock: %w", err)
				return
			}
			err := r.forkBwrap(args, attr)
			started <- err
			if err == nil {
				r.waited <- r.waitBwrap()
			}
		}()
		err = <-started
	}
	if err != nil {
		return unlock, err
	}
	r.fds.closeChild()
	r.errW.Close()
	r.errW = nil
	for _, f := range r.childStdio {
		f.Close()
	}
	r.childStdio = nil
	r.copyDone = make(chan struct{})
	go r.copyStderr(r.merged)
	if r.outR != nil {
		r.outDone = make(chan struct{})
		go r.copyStdout()
	}
	return unlock, nil
}

// forkBwrap starts bwrap. syscall.ForkExec rather than os.StartProcess:
// the latter first probes pidfd support by forking a throw-away child.
func (r *runner) forkBwrap(args []string, attr *syscall.ProcAttr) error {
	pid, err := startBwrap(r.inv, args, attr)
	if err != nil {
		return fmt.Errorf("starting bwrap %s: %w", r.inv.Bwrap.Path, err)
	}
	r.bwrapPID = pid
	// bwrap is our unreaped child: its pid is stable here. A non-blocking
	// pidfd lets waitBwrap park on the runtime's poller instead of
	// holding an OS thread in wait4 (Linux 5.10+; else a plain pidfd,
	// 5.3+, for signals only).
	if fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK); err == nil {
		r.bwrapPidfd = fd
		r.bwrapPidFile = os.NewFile(uintptr(fd), "pidfd")
	} else if fd, err := unix.PidfdOpen(pid, 0); err == nil {
		r.bwrapPidfd = fd
	}
	return nil
}

// waitBwrap reaps bwrap.
func (r *runner) waitBwrap() waitResult {
	var ws syscall.WaitStatus
	if r.bwrapPidFile != nil {
		if rc, err := r.bwrapPidFile.SyscallConn(); err == nil {
			var werr error
			reaped := false
			// An error of Read (the descriptor cannot be polled) leaves
			// the blocking wait below.
			_ = rc.Read(func(uintptr) bool {
				pid, err := syscall.Wait4(r.bwrapPID, &ws, syscall.WNOHANG, nil)
				switch {
				case err == syscall.EINTR:
					return false
				case err != nil:
					werr = err
					return true
				}
				reaped = pid == r.bwrapPID
				return reaped
			})
			if reaped || werr != nil {
				return waitResult{ws, werr}
			}
		}
	}
	for {
		_, err := syscall.Wait4(r.bwrapPID, &ws, 0, nil)
		if err != syscall.EINTR {
			return waitResult{ws, err}
		}
	}
}

func closeFD(fd int) { _ = unix.Close(fd) }
