package runtime

// This file keeps the command's standard input and output away from
// the host's files. A descriptor handed over as it is can be reopened
// through /proc/self/fd/N, and the reopening resolves to the file on the
// host's own mount: a command given `< ~/.profile` could append to it
// (the sandbox shows it read-only), one whose output goes `>>` to a log
// in a hidden directory could read it back and truncate it. A pipe,
// reopened, is the same pipe; a terminal or /dev/null is a device the
// sandbox has anyway. So a stream that is a file, a directory or a
// block device is interposed: a pipe goes to bwrap, and the runtime
// copies between it and the caller's file.

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// reopenable reports whether f is a stream a command could reopen
// through /proc/self/fd to reach a host file: a regular file, a
// directory or a block device.
func reopenable(f *os.File) bool {
	st, ok := fstat(f)
	if !ok {
		return true // unknown: interposing is the safe side
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG, unix.S_IFDIR, unix.S_IFBLK:
		return true
	}
	return false
}

// interposeStdin replaces the command's stdin, when reopenable, by a
// pipe the runtime fills from it. The copy ends at the file's end (a
// directory reads as empty) or when the sandbox has closed the pipe.
func (r *runner) interposeStdin() error {
	if !reopenable(r.stdin) {
		return nil
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	src := r.stdin
	go func() {
		io.Copy(pw, src) // EPIPE once the sandbox is gone: it read what it wanted
		pw.Close()
	}()
	r.stdin = pr
	r.childStdio = append(r.childStdio, pr)
	return nil
}

// interposeStdout replaces the command's stdout, when reopenable and
// not already merged into the stderr pipe, by a pipe the runtime copies
// to it (drained like stderr: outDone).
func (r *runner) interposeStdout() error {
	if r.merged || !reopenable(r.stdout) {
		return nil
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	r.outR, r.outDst = pr, r.stdout
	r.stdout = pw
	r.childStdio = append(r.childStdio, pw)
	return nil
}

// copyStdout copies the interposed stdout pipe to the caller's file
// until every writer is gone, or, once drain has set a past deadline,
// what is still buffered.
func (r *runner) copyStdout() {
	defer close(r.outDone)
	dst := r.outDst
	buf := make([]byte, 32<<10)
	emit := func(p []byte) {
		if dst != nil {
			if _, err := dst.Write(p); err != nil {
				dst = nil // the command must not block
			}
		}
	}
	pump(r.outR, buf, emit)
}
