package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	bwruntime "github.com/bwpolicy/bwpolicy/runtime"
	"github.com/bwpolicy/bwpolicy/runtime/ledger"
)

func init() {
	register(&command{
		name:     "trust",
		summary:  "record files as yours in an environment's ledger (H9), so the post-command scan leaves them",
		synopsis: "bwpolicy trust [--list] INVOCATION [PATH...]",
		description: `Records each PATH, as it is now, in the ledger kept beside INVOCATION
(INVOCATION.ledger): bwrun's post-command scan then leaves it where it is.
The ledger is what decides whose a git hook, a git configuration with a
code key, a pointer, a to-do list or a start-up file in the writable
directories is: one the ledger does not hold as it is now is the
command's and is set aside after the command (renamed to
NAME.bwpolicy-set-aside-TIME). Nothing else adds to the ledger: bwrun
records a writable directory only the first time a command of the
environment can write it, before that command runs, and a recompile
never does. To accept a file a command left, review it, rename it back
(for a set-aside file) and trust it here. A PATH that is a directory is
recorded with every file and directory below it (at most 100,000).
Trust only what you have read: the file runs on your host.

--list prints the ledger's roots and entries instead.`,
		exits: []exitCode{
			{exitOK, "recorded (or listed)"},
			{exitUsage, "usage error, or the ledger could not be read or written"},
		},
		args:  "files",
		setup: trustSetup,
	})
}

// maxTrustEntries bounds what one PATH that is a directory records.
const maxTrustEntries = 100_000

func trustSetup(fs *flag.FlagSet) runner {
	list := fs.Bool("list", false, "print the ledger's roots and entries")
	return func(args []string, stdout, stderr io.Writer) int { return trustMain(*list, args, stdout, stderr) }
}

func trustMain(list bool, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || !list && len(args) < 2 {
		fmt.Fprintln(stderr, "bwpolicy trust: need INVOCATION and at least one PATH (or --list INVOCATION)")
		commands["trust"].shortUsage(stderr)
		return exitUsage
	}
	inv := args[0]
	// The same checks bwrun makes of the invocation (owner, mode, no
	// symlink on the way, outside the sandbox's writable set): the
	// ledger lives beside it.
	if _, err := bwruntime.LoadTrusted(inv); err != nil {
		fmt.Fprintf(stderr, "bwpolicy trust: %v\n", err)
		return exitUsage
	}
	led, err := bwruntime.LoadLedger(inv)
	if err != nil {
		fmt.Fprintf(stderr, "bwpolicy trust: %v\n", err)
		return exitUsage
	}
	if list {
		if led.Unresolved {
			fmt.Fprintln(stdout, "unresolved: a scan left something unjudged; until one finishes, the scans judge what the invocation binds read-only too")
		}
		for _, r := range led.Roots {
			fmt.Fprintf(stdout, "root %s\n", r.Path)
		}
		for _, p := range led.Paths() {
			fmt.Fprintln(stdout, p)
		}
		return exitOK
	}
	for _, p := range args[1:] {
		abs, err := filepath.Abs(p)
		if err != nil {
			fmt.Fprintf(stderr, "bwpolicy trust: %s: %v\n", p, err)
			return exitUsage
		}
		n, err := trustTree(led, abs)
		if err != nil {
			fmt.Fprintf(stderr, "bwpolicy trust: %v\n", err)
			return exitUsage
		}
		fmt.Fprintf(stdout, "trusted %s (%d entries)\n", abs, n)
	}
	if err := led.Save(inv + ledger.Suffix); err != nil {
		fmt.Fprintf(stderr, "bwpolicy trust: writing the ledger: %v\n", err)
		return exitUsage
	}
	return exitOK
}

// trustTree records p and, when it is a directory (not a link to one),
// everything below it, up to maxTrustEntries; resolved places of the
// directories on the way are recorded too (the scan asks by either).
func trustTree(led *ledger.Ledger, p string) (int, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return 0, err
	}
	paths := []string{p}
	if r, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil && r != filepath.Dir(p) {
		paths = append(paths, filepath.Join(r, filepath.Base(p)))
	}
	n := 0
	for _, q := range paths {
		if err := bwruntime.RecordTrusted(led, q); err != nil {
			return n, err
		}
		n++
	}
	if !fi.IsDir() {
		return n, nil
	}
	err = filepath.WalkDir(p, func(q string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if q == p {
			return nil
		}
		if n++; n > maxTrustEntries {
			return fmt.Errorf("%s: more than %d entries; trust the files you mean one by one", p, maxTrustEntries)
		}
		return bwruntime.RecordTrusted(led, q)
	})
	return n, err
}
