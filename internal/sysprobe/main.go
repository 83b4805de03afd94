// Command sysprobe performs one syscall with harmless arguments and prints
// the errno it got, for tests that check a sandbox's seccomp filter.
//
// Usage:
//
//	sysprobe NAME    perform probe NAME, print "errno=<NAME>" (for example
//	                 errno=EPERM, errno=ENOSYS, or errno=0) and exit 0
//	sysprobe -list   print the probe names, one a line
//
// The output format is exactly "errno=<NAME>\n"; other test suites parse
// it. A probe that the filter kills (x32, int80) prints nothing and dies
// of SIGSYS. Exit status 2 means a usage or set-up error.
//
// Every probe is safe to run unsandboxed, as root: the arguments either
// make the call fail after the permission checks, or affect only this
// short-lived process (see probes.go).
package main

import (
	"fmt"
	"os"
	"sort"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: sysprobe NAME | -list")
		os.Exit(2)
	}
	if os.Args[1] == "-list" {
		names := make([]string, 0, len(probes))
		for n := range probes {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Println(n)
		}
		return
	}
	probe, ok := probes[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "sysprobe: unknown probe %q (sysprobe -list shows them)\n", os.Args[1])
		os.Exit(2)
	}
	errno, err := probe()
	if err != nil {
		fmt.Fprintf(os.Stderr, "sysprobe %s: %v\n", os.Args[1], err)
		os.Exit(2)
	}
	fmt.Println("errno=" + errnoName(errno))
}

// errnoName returns "0" for success and the symbolic name (EPERM) otherwise.
func errnoName(e unix.Errno) string {
	if e == 0 {
		return "0"
	}
	if n := unix.ErrnoName(e); n != "" {
		return n
	}
	return fmt.Sprintf("%d", uintptr(e))
}
