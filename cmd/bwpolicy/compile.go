package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/bwpolicy/bwpolicy/compiler"
	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/runtime"
	"github.com/bwpolicy/bwpolicy/verify"
)

func init() {
	register("compile", "print the frozen bwrap invocation (JSON), or the explained plan (--explain)", compileMain)
}

func compileMain(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("compile", stderr)
	var cf compileFlags
	cf.register(fs)
	out := fs.String("o", "", "write the invocation to `FILE` (atomically; nothing is written on error)")
	explain := fs.Bool("explain", false, "print the explained plan instead of JSON")
	view := fs.Bool("view", false, "with --explain: also draw the sandbox's filesystem as a tree")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "bwpolicy compile: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	req, ds, code := cf.request()
	if req == nil {
		diag.Render(stderr, ds, nil)
		return code
	}
	res := compiler.Compile(context.Background(), req)
	if res.Diags.HasErrors() {
		diag.Render(stderr, res.Diags, sources(res))
		return exitFound
	}
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
		return fmt.Errorf("-o %s: is %s; refusing to replace it with a file", path, runtime.FileKind(st.Mode()))
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
