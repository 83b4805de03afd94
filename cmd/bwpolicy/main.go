// Command bwpolicy compiles declarative sandbox settings into a frozen,
// explained bubblewrap invocation, checks settings files in CI, and runs
// commands in the sandbox it compiled.
//
// Usage:
//
//	bwpolicy check [--format text|json|sarif|github] [--policy DIR]... [--profiles DIR]... [FILE|DIR...]
//	bwpolicy compile [--config FILE] [--profile NAME] [--cwd DIR] [-o FILE] [--explain]
//	bwpolicy run [--config FILE] [--profile NAME] [--cwd DIR] -- CMD [ARG...]
//	bwpolicy doctor [--format text|json]
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"
)

// command is one subcommand: its one-line summary and its entry point,
// which returns the process exit code.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

// commands is filled by each subcommand's file.
var commands = map[string]command{}

func register(name, summary string, run func([]string, io.Writer, io.Writer) int) {
	commands[name] = command{summary: summary, run: run}
}

// Exit codes shared by the subcommands (SPEC §9).
const (
	exitOK      = 0
	exitFound   = 1 // errors found / refused
	exitUsage   = 2 // usage or internal error
	exitRuntime = 125
)

func main() {
	// A compilation's heap peaks near 30 MB whatever the GC target, so
	// collecting from Go's 4 MB starting goal only costs start-up time
	// (BENCHMARKS.md, "Cold compile"). GOGC still wins when set.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(mainCode(os.Args[1:], os.Stdout, os.Stderr))
}

func mainCode(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "bwpolicy: unknown command %q\n", args[0])
		usage(stderr)
		return exitUsage
	}
	return cmd.run(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: bwpolicy COMMAND [OPTIONS]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
}
