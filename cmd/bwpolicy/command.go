package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// command is one subcommand, as data: what `bwpolicy NAME --help`
// prints, what completion offers, and how it runs (the stdlib shape of
// cmd/go's base.Command).
type command struct {
	name string
	// summary is the one line of the command list.
	summary string
	// synopsis is the usage line(s) after "usage: ".
	synopsis string
	// description is the help's body: what the command does.
	description string
	// exits are the command's exit statuses, in order.
	exits []exitCode
	// args says what the positional arguments are, for completion:
	// "files", "dirs", "shells", "command" (after --) or "" (none).
	args string
	// usageExit is the status of a usage error: exitUsage (2), or
	// exitRuntime (125) for run, which keeps 2 for the command's own.
	usageExit int
	// setup registers the command's flags on fs and returns the function
	// that runs it with the arguments left after the flags.
	setup func(fs *flag.FlagSet) runner
}

// runner runs a command with its positional arguments and returns the
// process exit status.
type runner func(args []string, stdout, stderr io.Writer) int

// exitCode is one exit status of a command and what it means.
type exitCode struct {
	code    int
	meaning string
}

// commands holds every subcommand, filled by each command's file.
var commands = map[string]*command{}

func register(c *command) {
	if c.usageExit == 0 {
		c.usageExit = exitUsage
	}
	commands[c.name] = c
}

// flagSet returns a new flag set with c's flags and the runner that
// reads them.
func (c *command) flagSet(stderr io.Writer) (*flag.FlagSet, runner) {
	fs := flag.NewFlagSet("bwpolicy "+c.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {} // execute says what went wrong
	return fs, c.setup(fs)
}

// execute parses args and runs c: -h, -help and --help print the help
// on stdout and exit 0; a flag error prints the synopsis on stderr and
// exits c.usageExit.
func (c *command) execute(args []string, stdout, stderr io.Writer) int {
	fs, run := c.flagSet(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			c.help(stdout, fs)
			return exitOK
		}
		c.shortUsage(stderr)
		return c.usageExit
	}
	return run(fs.Args(), stdout, stderr)
}

// shortUsage is what a usage error prints after the error itself.
func (c *command) shortUsage(w io.Writer) {
	fmt.Fprintf(w, "usage: %s\nRun 'bwpolicy %s --help' for the options and exit statuses.\n", c.synopsis, c.name)
}

// help writes the full help: synopsis, description, the options spelled
// as docs/cli.md and completion spell them (--flag, -o), and the exit
// statuses.
func (c *command) help(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n", c.synopsis, strings.TrimSpace(c.description))
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintln(w, "\noptions:")
		fs.VisitAll(func(f *flag.Flag) {
			value, usage := flag.UnquoteUsage(f)
			if isBoolFlag(f) {
				value = ""
			}
			head := "  " + dashed(f.Name)
			if value != "" {
				head += " " + value
			}
			fmt.Fprintln(w, head)
			if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "[]" {
				usage += fmt.Sprintf(" (default %s)", f.DefValue)
			}
			fmt.Fprintf(w, "      %s\n", strings.ReplaceAll(usage, "\n", "\n      "))
		})
	}
	fmt.Fprintln(w, "\nexit status:")
	for _, e := range c.exits {
		fmt.Fprintf(w, "  %3d  %s\n", e.code, e.meaning)
	}
}

// dashed spells a flag as it is documented: -o for one letter, --name
// otherwise (Go's flag package accepts either spelling of both).
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// noFlags is the setup of a command without flags.
func noFlags(run runner) func(*flag.FlagSet) runner {
	return func(*flag.FlagSet) runner { return run }
}
