// Command gofork is the floor of any Go front end to bwrap, for
// bench/run.sh's decomposition (BENCHMARKS.md):
//
//	gofork exec PROG [ARG...]   start the Go runtime, then exec PROG
//	gofork fork PROG [ARG...]   start the Go runtime, fork+exec PROG
//	                            (every open descriptor at its number),
//	                            wait, exit with its status
//
// bwrun does what `gofork fork` does plus its own work (load, checks,
// limits, status); the difference between them is what bwrun adds.
package main

import (
	"os"
	"syscall"
)

func main() {
	if len(os.Args) < 3 {
		os.Stderr.WriteString("usage: gofork exec|fork PROG [ARG...]\n")
		os.Exit(2)
	}
	prog, argv := os.Args[2], os.Args[2:]
	if os.Args[1] == "exec" {
		err := syscall.Exec(prog, argv, os.Environ())
		os.Stderr.WriteString("gofork: " + err.Error() + "\n")
		os.Exit(127)
	}
	pid, err := syscall.ForkExec(prog, argv, &syscall.ProcAttr{Env: os.Environ(), Files: inherited()})
	if err != nil {
		os.Stderr.WriteString("gofork: " + err.Error() + "\n")
		os.Exit(126)
	}
	var ws syscall.WaitStatus
	for {
		if _, err := syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
			break
		}
	}
	if ws.Signaled() {
		os.Exit(128 + int(ws.Signal()))
	}
	os.Exit(ws.ExitStatus())
}

// inherited returns the descriptors below 64 that exec would pass on
// (open, without close-on-exec), each at its number.
func inherited() []uintptr {
	var files []uintptr
	for fd := 0; fd < 64; fd++ {
		flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
		if errno != 0 || flags&syscall.FD_CLOEXEC != 0 {
			continue
		}
		for len(files) < fd {
			files = append(files, ^uintptr(0))
		}
		files = append(files, uintptr(fd))
	}
	return files
}
