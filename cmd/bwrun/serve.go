package main

import (
	"fmt"
	"io"
	"os"
	"strconv"

	bwruntime "github.com/bwpolicy/bwpolicy/runtime"
	"github.com/bwpolicy/bwpolicy/runtime/serve"
	"golang.org/x/sys/unix"
)

// serveMode is bwrun --serve INVOCATION [--ready-fd N] [--parent-fd N]
// (runtime/serve; the socket is always serve.SocketOf(INVOCATION)).
func serveMode(args []string, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "" {
		fmt.Fprintln(stderr, "bwrun: --serve needs INVOCATION")
		return bwruntime.ExitSetup
	}
	cfg := serve.Config{InvPath: args[0], Log: stderr}
	for rest := args[1:]; len(rest) > 0; rest = rest[2:] {
		if len(rest) < 2 {
			fmt.Fprintf(stderr, "bwrun: --serve: %s needs a value\n", rest[0])
			return bwruntime.ExitSetup
		}
		switch rest[0] {
		case "--ready-fd", "--parent-fd":
			f, err := fdArg(rest[1])
			if err != nil {
				fmt.Fprintf(stderr, "bwrun: --serve: %s: %v\n", rest[0], err)
				return bwruntime.ExitSetup
			}
			if rest[0] == "--ready-fd" {
				cfg.Ready = f
			} else {
				cfg.Parent = f
			}
		default:
			fmt.Fprintf(stderr, "bwrun: --serve: unknown option %s\n", rest[0])
			return bwruntime.ExitSetup
		}
	}
	if err := serve.Serve(cfg); err != nil {
		fmt.Fprintf(stderr, "bwrun: serve: %v\n", err)
		return bwruntime.ExitSetup
	}
	return 0
}

// fdArg is the open descriptor numbered s (3 or above).
func fdArg(s string) (*os.File, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 3 {
		return nil, fmt.Errorf("%q is not a descriptor number from 3 up", s)
	}
	if _, err := unix.FcntlInt(uintptr(n), unix.F_GETFD, 0); err != nil {
		return nil, fmt.Errorf("descriptor %d is not open", n)
	}
	return os.NewFile(uintptr(n), "fd"+s), nil
}
