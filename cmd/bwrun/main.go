// Command bwrun is bwpolicy's per-command runtime: it runs one command in
// the sandbox a compiled invocation describes.
//
//	bwrun [--status-fd N] [--status-file F] [--nonce N] [--timeout S] [--chdir DIR] [--expose FILE]... INVOCATION.json -- CMD [ARG...]
//	bwrun --version
//	bwrun --watch INVOCATION.json
//	bwrun --serve INVOCATION.json [--ready-fd N] [--parent-fd N]
//
// It reads and checks the invocation (format version, preconditions: a
// stale invocation is refused), starts bwrap with the invocation's
// arguments, applies the resource limits to the sandbox before the
// command runs, relays SIGINT/SIGTERM/SIGHUP/SIGQUIT, and exits with the
// command's status. With --status-fd or --status-file it also writes one
// JSON object saying how the run ended (runtime.Status), on a channel the
// command cannot reach: callers decide to recompile on its "stale"
// outcome, never on exit status 125 alone.
//
// Exit status: the command's own status (128+N when signal N killed it);
// 127 when the command does not exist in the sandbox; 126 when it cannot
// be executed; 124 when --timeout expired; 125 when bwrun or bwrap could
// not set the sandbox up,
// including usage errors, so that a caller sees either the command's
// status or 125 (bwrun reserves 125 for its own failures, as env(1) and
// chroot(1) do). Messages start with "bwrun: ".
//
// With --watch, bwrun is the environment's change watcher
// (runtime/watch): bwrun starts it, detached, when none answers, and asks
// it after each command which directories changed, so that the
// post-command scan re-reads those instead of the whole writable set. It
// reports its start on descriptor 3 when that is open, and exits when
// the invocation changes or goes away, or after WatcherIdle without a
// request.
//
// With --serve, bwrun is the environment's runtime for as long as its
// caller lives (runtime/serve): it holds the invocation and runs each
// command asked on its socket (INVOCATION.serve/sock by default) through
// the same per-command path as the CLI (runtime.RunCommand), answering
// with the status record. It writes "ready" or "fail REASON" on
// --ready-fd, and exits when --parent-fd reaches end of file, on a
// signal, or when the invocation changes on disk.
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

	bwruntime "github.com/bwpolicy/bwpolicy/runtime"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"golang.org/x/sys/unix"
)

// version is set at build time with -ldflags "-X main.version=...";
// otherwise it comes from the module's build information.
var version = ""

const usage = `usage: bwrun [OPTION...] INVOCATION.json -- CMD [ARG...]
       bwrun --serve INVOCATION.json [--ready-fd N] [--parent-fd N]
       bwrun --version

Runs CMD in the bubblewrap sandbox described by INVOCATION.json (the output
of "bwpolicy compile"). Exits with CMD's status; 127 if CMD does not exist in
the sandbox, 126 if it cannot be executed, 124 if --timeout expired, 125 if the
sandbox could not be set up, the invocation is stale, or on a usage error
(a command can exit 125 too: only the status channel tells them apart).
Nothing the command started runs after bwrun returns.

With --serve, bwrun is the environment's runtime while its caller lives: it
holds the verified invocation and runs each command asked on its socket
(INVOCATION.serve/sock, in a 0700 directory; only the same user in the same
pid namespace is answered) through the same per-command path, replying with
the status object after the post-command scan. It writes "ready" or
"fail REASON" on --ready-fd and exits when --parent-fd reaches end of file, on
a signal, or when the invocation changes on disk.

Options (before INVOCATION.json):
` + bwruntime.RunFlagsUsage

// exitProbe, when set, is called just before bwrun exits. Only the
// benchmark build sets it (go build -tags bwrunprobe: cpuprobe.go).
var exitProbe func()

func main() {
	// Nothing the caller left open may reach the sandbox.
	bwruntime.CloseInheritedFDs()
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	if exitProbe != nil {
		exitProbe()
	}
	os.Exit(code)
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 {
		switch args[0] {
		case "--version", "-version", "-V":
			fmt.Fprintf(stdout, "bwrun %s (invocation format %s)\n", buildVersion(), invocation.Format)
			return 0
		case "--help", "-help", "-h":
			fmt.Fprint(stdout, usage)
			return 0
		}
	}
	if len(args) == 2 && args[0] == "--watch" {
		return watchMode(args[1], stderr)
	}
	if exe, err := os.Executable(); err == nil {
		bwruntime.WatcherExe = exe
	}
	if len(args) > 0 && args[0] == "--serve" {
		return serveMode(args[1:], stderr)
	}
	flags, args, err := bwruntime.ParseRunFlags(args)
	statusNonce = flags.Nonce
	if err != nil {
		fmt.Fprintf(stderr, "bwrun: %v\n", err)
		fmt.Fprint(stderr, usage)
		return bwruntime.ExitSetup
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
		if flags.StatusFD >= 0 {
			writeStatus(os.NewFile(uintptr(flags.StatusFD), "status"), bwruntime.Status{Outcome: bwruntime.OutcomeSetupFailed, ExitStatus: bwruntime.ExitSetup, Message: "usage error"}, stderr)
		}
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
	inv, data, err := bwruntime.LoadTrustedData(args[0])
	status, serr := flags.OpenStatus(inv)
	if serr != nil {
		fmt.Fprintf(stderr, "bwrun: %v\n", serr)
		return bwruntime.ExitSetup
	}
	st := bwruntime.RunCommand(context.Background(), bwruntime.Command{
		InvPath: args[0], Inv: inv, Data: data, LoadErr: err,
		Argv:    args[2:],
		Options: flags.Options,
		Stdin:   os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Messages: stderr,
		Signals: sigc, Ready: notified,
	})
	writeStatus(status, st, stderr)
	return st.ExitStatus
}

// statusNonce is the run's --nonce, echoed in every status it writes.
var statusNonce string

// writeStatus writes st, with the run's nonce, to the status channel (if
// any) and closes it.
func writeStatus(f *os.File, st bwruntime.Status, stderr io.Writer) {
	if f == nil {
		return
	}
	st.Nonce = statusNonce
	if _, err := f.Write(st.JSON()); err != nil {
		fmt.Fprintf(stderr, "bwrun: writing the status: %v\n", err)
	}
	f.Close()
}

// watchMode is bwrun --watch INVOCATION (runtime.ServeWatch).
func watchMode(invPath string, stderr io.Writer) int {
	var ready *os.File
	if _, err := unix.FcntlInt(3, unix.F_GETFD, 0); err == nil {
		ready = os.NewFile(3, "ready")
	}
	if err := bwruntime.ServeWatch(invPath, ready); err != nil {
		fmt.Fprintf(stderr, "bwrun: watcher: %v\n", err)
		return bwruntime.ExitSetup
	}
	return 0
}

func buildVersion() string { return bwruntime.ModuleVersion(version) }
