// Command bwrun is bwpolicy's per-command runtime: it runs one command in
// the sandbox a compiled invocation describes.
//
//	bwrun INVOCATION.json -- CMD [ARG...]
//	bwrun --version
//
// It reads and checks the invocation (format version, preconditions: a
// stale invocation is refused), starts bwrap with the invocation's
// arguments, applies the resource limits to the sandbox before the
// command runs, relays SIGINT/SIGTERM/SIGHUP/SIGQUIT, and exits with the
// command's status.
//
// Exit status: the command's own status (128+N when signal N killed it);
// 127 when the command does not exist in the sandbox; 126 when it cannot
// be executed; 125 when bwrun or bwrap could not set the sandbox up,
// including usage errors, so that a caller sees either the command's
// status or 125 (bwrun reserves 125 for its own failures, as env(1) and
// chroot(1) do). Messages start with "bwrun: ".
//
// bwrun depends on the standard library and golang.org/x/sys only, so
// that it starts in about a millisecond.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"

	bwruntime "github.com/bwpolicy/bwpolicy/runtime"
)

// version is set at build time with -ldflags "-X main.version=...";
// otherwise it comes from the module's build information.
var version = ""

const usage = `usage: bwrun INVOCATION.json -- CMD [ARG...]
       bwrun --version

Runs CMD in the bubblewrap sandbox described by INVOCATION.json (the output
of "bwpolicy compile"). Exits with CMD's status; 127 if CMD does not exist in
the sandbox, 126 if it cannot be executed, 125 if the sandbox could not be set
up (or on a usage error).
`

func main() {
	// Nothing the caller left open may reach the sandbox.
	bwruntime.CloseInheritedFDs()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 {
		switch args[0] {
		case "--version", "-version", "-V":
			fmt.Fprintf(stdout, "bwrun %s (invocation format %s)\n", buildVersion(), bwruntime.Format)
			return 0
		case "--help", "-help", "-h":
			fmt.Fprint(stdout, usage)
			return 0
		}
	}
	if len(args) < 3 || args[1] != "--" || args[0] == "" || args[2] == "" {
		switch {
		case len(args) == 0:
			fmt.Fprintln(stderr, "bwrun: missing INVOCATION and command")
		case args[0] == "":
			fmt.Fprintln(stderr, "bwrun: empty INVOCATION path")
		case len(args) == 1:
			fmt.Fprintln(stderr, "bwrun: missing \"--\" and the command after INVOCATION")
		case args[1] != "--":
			fmt.Fprintf(stderr, "bwrun: expected \"--\" after INVOCATION, found %q\n", args[1])
		default:
			fmt.Fprintln(stderr, "bwrun: missing command after \"--\"")
		}
		fmt.Fprint(stderr, usage)
		return bwruntime.ExitSetup
	}
	// Relay signals from the start (a signal now must not kill bwrun
	// once bwrap runs); registering costs a few hundred microseconds of
	// runtime set-up, done while the invocation loads. bwrun exits after
	// Run, so the registration is never removed.
	sigc := make(chan os.Signal, 4)
	notified := make(chan struct{})
	go func() {
		signal.Notify(sigc, bwruntime.ForwardedSignals...)
		close(notified)
	}()
	inv, err := bwruntime.Load(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "bwrun: %v\n", err)
		return bwruntime.ExitSetup
	}
	if err := bwruntime.CheckStaleMark(args[0]); err != nil {
		fmt.Fprintf(stderr, "bwrun: %v\n", err)
		return bwruntime.ExitSetup
	}
	<-notified
	var scan bwruntime.GitScanReport
	code, err := bwruntime.Run(context.Background(), inv, args[2:], bwruntime.Stdio{
		Stdin:   os.Stdin,
		Stdout:  os.Stdout,
		Stderr:  os.Stderr,
		Signals: sigc,
		GitScan: &scan,
	})
	if err != nil {
		fmt.Fprintf(stderr, "bwrun: %v\n", err)
	}
	if scan.Stale() {
		// The next command must be compiled again, so that what the
		// command left is protected (H9).
		if err := bwruntime.MarkStale(args[0], scan); err != nil {
			fmt.Fprintf(stderr, "bwrun: warning: cannot mark the invocation stale (%v): recompile before the next command\n", err)
		}
	}
	return code
}

func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
