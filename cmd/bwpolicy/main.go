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
	"runtime/debug"
	"sort"
	"strings"
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

// Exit codes shared by the subcommands (README, Commands).
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
	if args[0] == "--version" || args[0] == "-version" || args[0] == "-V" {
		return runVersion(nil, stdout, stderr)
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "bwpolicy: unknown command %q%s\n", args[0], didYouMean(args[0]))
		usage(stderr)
		return exitUsage
	}
	return cmd.run(args[1:], stdout, stderr)
}

// didYouMean returns `; did you mean "NAME"?` for the command closest to
// name (at most two edits, or name a prefix of exactly one), else "".
func didYouMean(name string) string {
	best, bestD, prefixes := "", 3, 0
	var prefix string
	for n := range commands {
		if d := editDistance(name, n); d < bestD || (d == bestD && n < best) {
			best, bestD = n, d
		}
		if len(name) > 0 && strings.HasPrefix(n, name) {
			prefix, prefixes = n, prefixes+1
		}
	}
	switch {
	case best != "":
		return fmt.Sprintf("; did you mean %q?", best)
	case prefixes == 1:
		return fmt.Sprintf("; did you mean %q?", prefix)
	}
	return ""
}

// editDistance is the Levenshtein distance of a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
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
