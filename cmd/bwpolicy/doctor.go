package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/bwpolicy/bwpolicy/doctor"
)

func init() {
	register("doctor", "check that this host can run the sandboxes: bwrap, its options, a real probe, user namespaces, rlimits, Landlock", doctorMain)
}

// doctorMain implements `bwpolicy doctor [--format text|json]`: it checks
// whether this host can run bwpolicy's sandboxes (bwrap and its options,
// a real sandboxed command, user namespaces and the AppArmor restriction,
// RLIMIT_NPROC per user namespace, Landlock) and prints each check with
// its fix. Exit status: 0 all good, 1 something missing, 2 usage error.
func doctorMain(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("doctor", stderr)
	format := fs.String("format", "text", "output format: text or json")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: bwpolicy doctor [--format text|json]")
		fmt.Fprintln(stderr, "\nChecks that this host can run bwpolicy's sandboxes. Exit status: 0 all good, 1 something missing, 2 usage error.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "bwpolicy doctor: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return exitUsage
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(stderr, "bwpolicy doctor: --format must be text or json, not %q\n", *format)
		return exitUsage
	}
	report := doctor.Run(context.Background(), doctor.SystemHost())
	var err error
	if *format == "json" {
		err = report.WriteJSON(stdout)
	} else {
		err = report.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "bwpolicy doctor: %v\n", err)
		return exitUsage
	}
	if !report.OK {
		return exitFound
	}
	return exitOK
}
