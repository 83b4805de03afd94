package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/bwpolicy/bwpolicy/compiler"
	"github.com/bwpolicy/bwpolicy/diag"
	bwruntime "github.com/bwpolicy/bwpolicy/runtime"
)

func init() {
	register("run", "compile in memory, then run a command in the sandbox (the runtime bwrun uses)", runMain)
}

// runMain compiles the settings and runs argv through runtime.Run, the
// same code cmd/bwrun runs. Exit: the command's status, or 125 when the
// sandbox could not be set up (a refused compilation included). Nothing
// ever runs outside the sandbox: with degraded_mode warn a missing bwrap
// is a "degraded" result, with fail an error; both exit 125.
func runMain(args []string, stdout, stderr io.Writer) int {
	// Nothing the caller left open may reach the sandbox.
	bwruntime.CloseInheritedFDs()
	fs := newFlagSet("run", stderr)
	var cf compileFlags
	cf.register(fs)
	rf := bwruntime.RunFlags{StatusFD: -1}
	for _, name := range []string{"status-fd", "status-file", "timeout", "chdir"} {
		fs.Func(name, "(see Run options)", func(v string) error { return rf.Set("--"+name, v) })
	}
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s\n\nCompiles the settings in memory and runs CMD in the sandbox, as bwrun does.\nExit: CMD's status; 124 if --timeout expired; 125 if the sandbox could not be\nset up, the compilation was refused, or on a usage error.\n\nRun options:\n%s\nAll options:\n", runUsage, bwruntime.RunFlagsUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitRuntime
	}
	argv := fs.Args()
	if len(argv) > 0 && argv[0] == "--" {
		argv = argv[1:]
	}
	if len(argv) == 0 {
		fmt.Fprintln(stderr, "bwpolicy run: missing command; usage: "+runUsage)
		return exitRuntime
	}
	req, ds, _ := cf.request()
	if req == nil {
		diag.Render(stderr, ds, nil)
		return exitRuntime
	}
	res := compiler.Compile(context.Background(), req)
	if res.Diags.HasErrors() {
		diag.Render(stderr, res.Diags, sources(res))
		fmt.Fprintln(stderr, "bwpolicy run: refused; the command was not run")
		return exitRuntime
	}
	inv := res.Invocation
	if inv.Bwrap.Path == "" {
		if res.Settings.DegradedMode == "fail" {
			fmt.Fprintf(stderr, "bwpolicy run: error: bwrap not found (degraded_mode: fail); %s. The command was not run.\n", bwruntime.InstallHint)
		} else {
			fmt.Fprintf(stderr, "bwpolicy run: degraded: the sandbox is unavailable because bwrap is not found; %s. The command was not run (commands never run unsandboxed).\n", bwruntime.InstallHint)
		}
		return exitRuntime
	}
	status, err := rf.OpenStatus(inv)
	if err != nil {
		fmt.Fprintf(stderr, "bwpolicy run: %v\n", err)
		return exitRuntime
	}
	st, err := bwruntime.RunWith(context.Background(), inv, argv, bwruntime.Stdio{
		Stdin: os.Stdin, Stdout: fileOr(stdout, os.Stdout), Stderr: fileOr(stderr, os.Stderr),
		Warn: func(msg string) { fmt.Fprintf(stderr, "bwpolicy run: warning: %s\n", msg) },
	}, rf.Options)
	if err != nil {
		fmt.Fprintf(stderr, "bwpolicy run: %v\n", err)
	}
	if status != nil {
		if _, err := status.Write(st.JSON()); err != nil {
			fmt.Fprintf(stderr, "bwpolicy run: writing the status: %v\n", err)
		}
		status.Close()
	}
	return st.ExitStatus
}

const runUsage = "bwpolicy run [--status-fd N] [--status-file F] [--timeout S] [--chdir DIR] [--config FILE] [--profile NAME] [--cwd DIR] -- CMD [ARG...]"

// fileOr returns w when it is an *os.File, else def.
func fileOr(w io.Writer, def *os.File) *os.File {
	if f, ok := w.(*os.File); ok {
		return f
	}
	return def
}
