package main

// The bwrap command lines benchtool prints: bare bwrap with an
// invocation's arguments, and Hermes' own backend chain for the same
// mounts.

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// fdFirst are the options whose first argument is a file descriptor.
var fdFirst = map[string]bool{
	"--info-fd": true, "--json-status-fd": true, "--block-fd": true, "--userns-block-fd": true, "--sync-fd": true,
	"--seccomp": true, "--add-seccomp-fd": true, "--userns": true, "--userns2": true, "--pidns": true, "--args": true,
	"--file": true, "--bind-data": true, "--ro-bind-data": true, "--bind-fd": true, "--ro-bind-fd": true,
}

// bareArgs returns inv's bwrap arguments for running bwrap directly:
// the runtime's pipes (--info-fd, --block-fd, --json-status-fd) left
// out, the empty streams at firstEmpty, firstEmpty+1, ... (returned in
// empties) and the seccomp program at seccompFD ("": left out).
func bareArgs(inv *invocation.Invocation, firstEmpty int, seccompFD string) (out []string, empties []int, err error) {
	kinds := map[string]string{}
	for _, fd := range inv.FDs {
		kinds[strconv.Itoa(fd.Num)] = fd.Kind
	}
	args := inv.Bwrap.Args
	for i := 0; i < len(args); {
		opt := args[i]
		n, ok := invocation.BwrapArity(opt) // an unknown option: refuse rather than guess
		if !ok {
			return nil, nil, fmt.Errorf("argument %d: %q is not a bwrap option benchtool knows", i, opt)
		}
		if i+1+n > len(args) {
			return nil, nil, fmt.Errorf("argument %d: %s needs %d arguments", i, opt, n)
		}
		group := append([]string(nil), args[i:i+1+n]...)
		i += 1 + n
		if !fdFirst[opt] {
			out = append(out, group...)
			continue
		}
		switch kind := kinds[group[1]]; kind {
		case invocation.FDInfo, invocation.FDBlock, invocation.FDStatus:
			continue // the runtime's own pipes
		case invocation.FDSeccomp:
			if seccompFD == "" {
				continue
			}
			group[1] = seccompFD
		case invocation.FDEmpty:
			fd := firstEmpty + len(empties)
			empties = append(empties, fd)
			group[1] = strconv.Itoa(fd)
		default:
			return nil, nil, fmt.Errorf("%s %s: fd of kind %q, which bare cannot provide", opt, group[1], kind)
		}
		out = append(out, group...)
	}
	return out, empties, nil
}

// loadBare loads the invocation at invPath and returns its bareArgs,
// the empty streams from firstEmpty (a number) on.
func loadBare(invPath, firstEmpty, seccompFD string) (*invocation.Invocation, []string, []int, error) {
	inv, err := invocation.Load(invPath)
	if err != nil {
		return nil, nil, nil, err
	}
	first, err := strconv.Atoi(firstEmpty)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("FIRST-EMPTY-FD %q: %w", firstEmpty, err)
	}
	args, empties, err := bareArgs(inv, first, seccompFD)
	return inv, args, empties, err
}

func bare(invPath, seccompOut, firstEmpty, seccompFD string, stdout, stderr io.Writer) error {
	inv, args, empties, err := loadBare(invPath, firstEmpty, seccompFD)
	if err != nil {
		return err
	}
	if inv.Seccomp != nil {
		if err := os.WriteFile(seccompOut, inv.Seccomp.Program, 0o644); err != nil {
			return err
		}
	}
	words := []string{shellQuote(inv.Bwrap.Path)}
	for _, a := range args {
		words = append(words, shellQuote(a))
	}
	fmt.Fprintln(stdout, strings.Join(words, " "))
	fds := make([]string, len(empties))
	for i, fd := range empties {
		fds[i] = strconv.Itoa(fd)
	}
	fmt.Fprintln(stdout, strings.Join(fds, " "))
	fmt.Fprintf(stderr, "bare bwrap differs from bwrun only in: no --info-fd/--block-fd/--json-status-fd (so no rlimits: as_bytes=%d cpu_seconds=%d nproc=%d are not set)",
		inv.Rlimits.AsBytes, inv.Rlimits.CPUSeconds, inv.Rlimits.NProc)
	if inv.Landlock != nil {
		fmt.Fprint(stderr, ", no Landlock scoping")
	}
	fmt.Fprint(stderr, ", the environment not filtered; the seccomp program and the empty files come from descriptors the shell opened\n")
	return nil
}

// hermes prints the command line of Hermes' own bubblewrap backend for
// inv's mounts: `prlimit --as --cpu BWRAP ARGS -- prlimit --nproc`, to
// which the caller appends the command. ARGS are bare's (the same empty
// streams from firstEmpty on) without the seccomp program: Hermes'
// backend installs none, sets the limits with prlimit(1) around bwrap
// and again inside, and has no runtime of its own.
func hermes(invPath, firstEmpty string, stdout io.Writer) error {
	inv, args, _, err := loadBare(invPath, firstEmpty, "")
	if err != nil {
		return err
	}
	words := []string{"/usr/bin/prlimit", fmt.Sprintf("--as=%d", inv.Rlimits.AsBytes), fmt.Sprintf("--cpu=%d", inv.Rlimits.CPUSeconds), shellQuote(inv.Bwrap.Path)}
	for _, a := range args {
		words = append(words, shellQuote(a))
	}
	words = append(words, "--", "/usr/bin/prlimit", fmt.Sprintf("--nproc=%d", inv.Rlimits.NProc))
	fmt.Fprintln(stdout, strings.Join(words, " "))
	return nil
}
