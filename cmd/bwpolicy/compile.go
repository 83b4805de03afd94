package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/bwpolicy/bwpolicy/compiler"
	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/runtime/hostprobe"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/verify"
)

func init() {
	register(&command{
		name:     "compile",
		summary:  "print the frozen bwrap invocation (JSON), or the explained plan (--explain)",
		synopsis: "bwpolicy compile [--config FILE] [--profile NAME] [--cwd DIR] [--sandbox-id ID]\n                        [--profiles DIR]... [--policy DIR]... [-o FILE] [--explain [--view]]\n                        [--eval-timeout DURATION] [--eval-memory MIB] [--policy-net] [--policy-env]",
		description: `Compiles the settings (--config FILE; default $HERMES_HOME/config.yaml if
it exists, else the embedded defaults) with this host's facts into the
frozen invocation bwrun runs (JSON on standard output, or -o FILE), or with
--explain the plan: every mount, variable and limit with the rule that put
it there. Diagnostics go to standard error.`,
		exits: []exitCode{
			{exitOK, "compiled (warnings on standard error)"},
			{exitFound, "refused: the settings have errors"},
			{exitUsage, "usage error, an organisation rule or custom profile that fails or crosses its bound, or the output could not be written"},
		},
		setup: compileSetup,
	})
}

// compileOptions are the flags of compile.
type compileOptions struct {
	cf            compileFlags
	out           string
	explain, view bool
}

func compileSetup(fs *flag.FlagSet) runner {
	var o compileOptions
	o.cf.register(fs)
	fs.StringVar(&o.out, "o", "", "write the invocation to `FILE` (atomically; nothing is written on error)")
	fs.BoolVar(&o.explain, "explain", false, "print the explained plan instead of JSON")
	fs.BoolVar(&o.view, "view", false, "with --explain: also draw the sandbox's filesystem as a tree")
	return func(args []string, stdout, stderr io.Writer) int { return compileMain(&o, args, stdout, stderr) }
}

func compileMain(o *compileOptions, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "bwpolicy compile: unexpected argument %q\n", args[0])
		commands["compile"].shortUsage(stderr)
		return exitUsage
	}
	cf, out, explain, view := &o.cf, &o.out, &o.explain, &o.view
	req, ds, code := cf.request()
	if req == nil {
		diag.Render(stderr, ds, nil)
		return code
	}
	defer req.Policy.Close()
	res := compiler.Compile(context.Background(), req)
	if res.Diags.HasErrors() {
		diag.Render(stderr, res.Diags, sources(res))
		if failed(res.Diags) {
			return exitUsage // an organisation rule failed or crossed a bound
		}
		return exitFound
	}
	noteBwrap(stderr, "compile", res)
	var body []byte
	if *explain {
		var b bytes.Buffer
		compiler.WriteExplain(&b, res)
		if *view {
			fmt.Fprintln(&b)
			if err := verify.ViewInvocation(&b, res.Invocation); err != nil {
				fmt.Fprintf(stderr, "bwpolicy compile: %v\n", err)
				return exitUsage
			}
		}
		body = b.Bytes()
	} else {
		diag.Render(stderr, res.Diags, sources(res))
		var err error
		body, err = compiler.Marshal(res.Invocation)
		if err != nil {
			fmt.Fprintf(stderr, "bwpolicy compile: %v\n", err)
			return exitUsage
		}
	}
	if *out == "" {
		stdout.Write(body)
		return exitOK
	}
	if err := writeAtomic(*out, body); err != nil {
		fmt.Fprintf(stderr, "bwpolicy compile: %v\n", err)
		return exitUsage
	}
	return exitOK
}

// writeAtomic writes data to a temporary file beside path and renames it
// into place, so a reader never sees a partial invocation. It writes only
// onto a new name or an existing regular file, whose permission bits it
// keeps (a new file gets 0644); a symbolic link, a named pipe, a device
// or a directory at path is refused and left as it is.
func writeAtomic(path string, data []byte) error {
	mode := os.FileMode(0o644)
	switch st, err := os.Lstat(path); {
	case err == nil && st.Mode()&os.ModeSymlink != 0:
		return fmt.Errorf("-o %s: is a symbolic link; refusing to replace it (name its target, or remove it)", path)
	case err == nil && !st.Mode().IsRegular():
		return fmt.Errorf("-o %s: is %s; refusing to replace it with a file", path, invocation.FileKind(st.Mode()))
	case err == nil:
		mode = st.Mode().Perm()
	case !os.IsNotExist(err):
		return err
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer os.Remove(name)
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(name, path)
}

// noteBwrap says why no bwrap was found when $BWPOLICY_BWRAP names one
// that cannot be used: the compile's S10 warning only says "not found",
// and the variable's value is what the user has to fix.
func noteBwrap(stderr io.Writer, cmd string, res *compiler.Result) {
	if res.Invocation == nil || res.Invocation.Bwrap.Path != "" || os.Getenv(hostprobe.EnvBwrap) == "" {
		return
	}
	if _, err := hostprobe.FindBwrap(); err != nil {
		fmt.Fprintf(stderr, "bwpolicy %s: %v\n", cmd, err)
	}
}
