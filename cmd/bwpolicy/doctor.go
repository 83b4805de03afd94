package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/bwpolicy/bwpolicy/doctor"
)

func init() {
	register(&command{
		name:     "doctor",
		summary:  "check that this host can run the sandboxes: bwrap, its options, a real probe, user namespaces, rlimits, Landlock",
		synopsis: "bwpolicy doctor [--format text|json]",
		description: `Checks whether this host can run bwpolicy's sandboxes: bwrap
(BWPOLICY_BWRAP, else bwrap on PATH) and its options, a real sandboxed
command, user namespaces and the AppArmor restriction, RLIMIT_NPROC per
user namespace, Landlock, Yama's ptrace_scope; prints each check with its
fix.`,
		exits: []exitCode{
			{exitOK, "all good"},
			{exitFound, "something is missing"},
			{exitUsage, "usage error"},
		},
		setup: doctorSetup,
	})
}

func doctorSetup(fs *flag.FlagSet) runner {
	format := fs.String("format", "text", "output `FORMAT`: text|json")
	return func(args []string, stdout, stderr io.Writer) int { return doctorMain(*format, args, stdout, stderr) }
}

// doctorMain implements bwpolicy doctor.
func doctorMain(format string, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "bwpolicy doctor: unexpected argument %q\n", args[0])
		commands["doctor"].shortUsage(stderr)
		return exitUsage
	}
	if format != "text" && format != "json" {
		fmt.Fprintf(stderr, "bwpolicy doctor: --format must be text or json, not %q\n", format)
		return exitUsage
	}
	report := doctor.Run(context.Background(), doctor.SystemHost())
	var err error
	if format == "json" {
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
