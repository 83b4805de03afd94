// Command bwpolicy compiles declarative sandbox settings into a frozen,
// explained bubblewrap invocation, checks settings files in CI, and runs
// commands in the sandbox it compiled.
//
// Usage:
//
//	bwpolicy check [--format text|json|sarif|github|junit|gitlab] [--policy DIR]... [--profiles DIR]... [FILE|DIR...]
//	bwpolicy compile [--config FILE] [--profile NAME] [--cwd DIR] [-o FILE] [--explain]
//	bwpolicy run [--config FILE] [--profile NAME] [--cwd DIR] -- CMD [ARG...]
//	bwpolicy doctor [--format text|json]
//	bwpolicy version (or --version)
package main

import (
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/internal/bounded"
	"github.com/bwpolicy/bwpolicy/internal/gctune" // the GC off during the package inits
)

// Exit codes shared by the subcommands (docs/cli.md, the help texts).
const (
	exitOK      = 0
	exitFound   = 1 // errors found / refused
	exitUsage   = 2 // usage or internal error
	exitRuntime = 125
)

func main() {
	// A re-executed bwpolicy that evaluates untrusted rules or profiles
	// under bounds (internal/bounded) serves its parent and exits here.
	bounded.ServeIfChild()
	// internal/gctune kept the collector off while the packages were
	// initialised; the command's own work gets its target.
	gctune.Start()
	os.Exit(mainCode(os.Args[1:], os.Stdout, os.Stderr))
}

func mainCode(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	if args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
		if len(args) > 1 && args[0] == "help" {
			cmd, ok := commands[args[1]]
			if !ok {
				fmt.Fprintf(stderr, "bwpolicy help: unknown command %q%s\n", args[1], didYouMean(args[1]))
				return exitUsage
			}
			return cmd.execute([]string{"--help"}, stdout, stderr)
		}
		usage(stdout)
		return exitOK
	}
	if args[0] == "--version" || args[0] == "-version" || args[0] == "-V" {
		return runVersion(nil, stdout, stderr)
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "bwpolicy: unknown command %q%s\n", args[0], didYouMean(args[0]))
		usage(stderr)
		return exitUsage
	}
	return cmd.execute(args[1:], stdout, stderr)
}

// didYouMean returns `; did you mean "NAME"?` for the command closest
// to name, else "".
func didYouMean(name string) string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	return diag.DidYouMean(name, names)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: bwpolicy COMMAND [OPTIONS] (bwpolicy COMMAND --help for one)\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\n--version prints the version (bwpolicy version).\nexit status: that of the command; 0 for --help and --version; 2 for an unknown command.")
}
