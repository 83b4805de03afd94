package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/verify"
)

func init() {
	register(&command{
		name:        "verify",
		summary:     "prove a compiled invocation's invariants (or draw it with --view)",
		synopsis:    "bwpolicy verify [--view] [--host=false] INVOCATION",
		description: verifyDescription,
		exits: []exitCode{
			{exitOK, "every invariant holds"},
			{exitFound, "violations (one a line: INVARIANT: PATH: detail)"},
			{exitUsage, "usage error or unreadable invocation"},
		},
		args:  "files",
		setup: verifySetup,
	})
}

const verifyDescription = `Replays the bwrap arguments of a compiled invocation into the mount table
they produce — with the verifier's own model of bwrap, sharing nothing
with the compiler — and proves its invariants against the host state the
invocation recorded:

  hidden-masked       every hidden path that existed is masked wherever it could show
  covered-protection  no mount after a mask lands at or above it
  writable-set        only the writable set is writable on the host
  pinned-parents      no parent of a mask inside a writable bind can be renamed
  mount-point         bwrap never creates a mount point on the host
  root-read-only      the host root is read-only
  proc-dev-tmp        a fresh /dev (read-only, a tmpfs /dev/shm), a private /proc, a tmpfs /tmp
  tmpfs-bounded       every tmpfs has a size bound (when tmp_mb is not 0)
  pid1-memory         the sandbox's pid 1 memory (/proc/1/mem) is unreachable
  namespaces          every namespace unshared; the network only under profile network
  seccomp             a seccomp program is installed
  fds                 every fd is declared with the kind its option reads
  chdir, replay       commands start where the invocation says; every argument is understood

and checks on this host what bwrun checks before it runs anything (unless
--host=false):

  bwrap-binary        bwrap.path is a regular ELF executable owned by root or you, not
                      writable by group or others, and the file the compile probed
  invocation-file     the file is yours or root's, not writable by group or others, in
                      directories nobody else can write, outside the sandbox's writable set

With --view, it also draws the sandbox's file system as a tree.`

func verifySetup(fs *flag.FlagSet) runner {
	view := fs.Bool("view", false, "draw the sandbox's file system as a tree of mount points")
	host := fs.Bool("host", true, "also check bwrap-binary and invocation-file on this host (--host=false for an invocation compiled for another machine)")
	return func(args []string, stdout, stderr io.Writer) int {
		return verifyMain(*view, *host, args, stdout, stderr)
	}
}

func verifyMain(view, host bool, args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "bwpolicy verify: name one INVOCATION file")
		commands["verify"].shortUsage(stderr)
		return exitUsage
	}
	file := args[0]
	inv, note, err := loadForVerify(file)
	if err != nil {
		fmt.Fprintf(stderr, "bwpolicy verify: %v\n", err)
		return exitUsage
	}
	if note != "" {
		fmt.Fprintf(stderr, "bwpolicy verify: note: %s\n", note)
	}
	vs := verify.Check(inv)
	hostInvs := []string{}
	if host {
		vs = append(vs, verifyOnHost(inv, file)...)
		hostInvs = verify.HostInvariants
	}
	if view {
		if t, err := verify.Replay(inv.Bwrap.Args); err != nil {
			fmt.Fprintf(stderr, "bwpolicy verify: cannot draw the file system: %v\n", err)
		} else {
			verify.View(stdout, t, inv)
			fmt.Fprintln(stdout)
		}
	}
	if len(vs) == 0 {
		fmt.Fprintf(stdout, "%s: verified: %d invariants hold (%s)\n", file, len(verify.Invariants)+len(hostInvs), strings.Join(append(append([]string(nil), verify.Invariants...), hostInvs...), ", "))
		return exitOK
	}
	fmt.Fprint(stdout, verify.Summary(vs))
	fmt.Fprintf(stderr, "bwpolicy verify: %s: %d violation(s)\n", file, len(vs))
	return exitFound
}

// loadForVerify reads an invocation with the runtime's strict decoder. An
// invocation that decodes strictly (no unknown field, the right format)
// but that the runtime's consistency check refuses — one compiled where
// bwrap was missing (S10), say — still describes a sandbox that can be
// verified: it is, with a note saying the runtime will not run it.
func loadForVerify(file string) (*invocation.Invocation, string, error) {
	data, err := invocation.ReadInvocation(file)
	if err != nil {
		return nil, "", err
	}
	inv, err := invocation.Decode(data)
	if err == nil {
		return inv, "", nil
	}
	err = fmt.Errorf("invocation %s: %w", file, err)
	var raw invocation.Invocation
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if dec.Decode(&raw) != nil || dec.More() || raw.Format != invocation.Format {
		return nil, "", err
	}
	verr := invocation.Validate(&raw)
	if verr == nil {
		return nil, "", err
	}
	return &raw, fmt.Sprintf("the runtime refuses to run this invocation (%v); verifying its sandbox anyway", verr), nil
}
