package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/bwpolicy/bwpolicy/compiler"
	"github.com/bwpolicy/bwpolicy/diag"
	bwruntime "github.com/bwpolicy/bwpolicy/runtime"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

func init() {
	register(&command{
		name:     "run",
		summary:  "compile in memory, then run a command in the sandbox (the runtime bwrun uses)",
		synopsis: runUsage,
		description: `Compiles the settings in memory and runs CMD in the sandbox, through the
runtime bwrun uses. Nothing ever runs outside the sandbox: with
degraded_mode warn a missing bwrap is a "degraded" result, with fail an
error; both exit 125. Like bwrun and env(1), run keeps 125 for its own
usage errors, so that 2 stays the command's. --status-fd, --status-file,
--timeout and --chdir are bwrun's options.`,
		exits: []exitCode{
			{0, "... 255: the command's own exit status"},
			{124, "--timeout expired; the whole sandbox was killed"},
			{exitRuntime, "the sandbox could not be set up, the compilation was refused, or a usage error (not 2: that is the command's)"},
		},
		args:      "command",
		usageExit: exitRuntime,
		setup:     runSetup,
	})
}

// runOptions are the flags of run.
type runOptions struct {
	cf compileFlags
	rf bwruntime.RunFlags
}

func runSetup(fs *flag.FlagSet) runner {
	o := &runOptions{rf: bwruntime.RunFlags{StatusFD: -1}}
	o.cf.register(fs)
	for _, f := range []struct{ name, usage string }{
		{"status-fd", "write one JSON object (schema/status.schema.json) saying how the run ended to descriptor `N`, which the command cannot reach"},
		{"status-file", "the same, to a new `FILE` (created exclusively, never through a symlink; refused inside the sandbox's writable directories)"},
		{"timeout", "kill the whole sandbox after `S` seconds of wall clock (exit 124)"},
		{"chdir", "start the command in `DIR` (a hidden one: the compiled directory, with a note)"},
	} {
		name := f.name
		fs.Func(name, f.usage, func(v string) error { return o.rf.Set("--"+name, v) })
	}
	return func(args []string, stdout, stderr io.Writer) int { return runMain(o, args, stdout, stderr) }
}

// runMain compiles the settings and runs argv through runtime.Run, the
// same code cmd/bwrun runs. Exit: the command's status, or 125 when the
// sandbox could not be set up (a refused compilation included).
func runMain(o *runOptions, argv []string, stdout, stderr io.Writer) int {
	// Nothing the caller left open may reach the sandbox.
	bwruntime.CloseInheritedFDs()
	cf, rf := &o.cf, &o.rf
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
	req.Policy.Close() // its children, before the command runs
	if res.Diags.HasErrors() {
		diag.Render(stderr, res.Diags, sources(res))
		fmt.Fprintln(stderr, "bwpolicy run: refused; the command was not run")
		return exitRuntime
	}
	// The compile's warnings (a HOME the layout cannot apply to, a
	// credential in an allowed file, a fallback working directory, …)
	// are the user's to see before the command runs, as compile shows
	// them.
	if len(res.Diags) > 0 {
		diag.Render(stderr, res.Diags, sources(res))
	}
	inv := res.Invocation
	// Compiled for this one command, the invocation has no stale mark to
	// carry what an earlier run's git scan could not clear
	// (runtime.CarriedGitScanSince): the scan judges every file changed
	// (H9), the user's own code keys in writable repositories included.
	inv.GitScanSince = 0
	if inv.Bwrap.Path == "" {
		noteBwrap(stderr, "run", res)
		if res.Settings.DegradedMode == "fail" {
			fmt.Fprintf(stderr, "bwpolicy run: error: bwrap not found (degraded_mode: fail); %s. The command was not run.\n", invocation.InstallHint)
		} else {
			fmt.Fprintf(stderr, "bwpolicy run: degraded: the sandbox is unavailable because bwrap is not found; %s. The command was not run (commands never run unsandboxed).\n", invocation.InstallHint)
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

const runUsage = "bwpolicy run [--status-fd N|--status-file F] [--timeout S] [--chdir DIR] [--config FILE] [--profile NAME]\n                    [--cwd DIR] [--sandbox-id ID] [--profiles DIR]... [--policy DIR]...\n                    [--eval-timeout DURATION] [--eval-memory MIB] [--policy-net] [--policy-env] -- CMD [ARG...]"

// fileOr returns w when it is an *os.File, else def.
func fileOr(w io.Writer, def *os.File) *os.File {
	if f, ok := w.(*os.File); ok {
		return f
	}
	return def
}
