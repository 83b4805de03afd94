package serve

import (
	"context"
	"fmt"
	"os"

	bwruntime "github.com/bwpolicy/bwpolicy/runtime"
	"github.com/bwpolicy/bwpolicy/runtime/watch"
	"golang.org/x/sys/unix"
)

// handle answers one connection: a peer CheckPeer refuses is closed
// unanswered; a request is run (run) and answered with its status. A
// non-nil error ends the server (the invocation changed, or could not
// be loaded again).
func (s *server) handle(c int) error {
	defer unix.Close(c)
	if why := watch.CheckPeer(c, s.uid, s.ns); why != "" {
		fmt.Fprintf(s.cfg.Log, "bwrun: serve: refused a connection: %s\n", why)
		return nil
	}
	req, files, err := readRequest(c, requestWait)
	if err != nil {
		fmt.Fprintf(s.cfg.Log, "bwrun: serve: %v\n", err)
		return nil
	}
	defer closeAll(files)
	st, end := s.run(c, req, files)
	_, _ = unix.Write(c, st.JSON())
	return end
}

// run runs req with the passed streams through runtime.RunCommand, the
// connection c watched for Kill or the caller's going; it returns the
// status (with the request's nonce) and the error that ends the server,
// if any. A server that is ending (a signal, or refusePending) runs
// nothing: the status is setup-failed (ErrEnding).
func (s *server) run(c int, req Request, files []*os.File) (bwruntime.Status, error) {
	flags, args, err := bwruntime.ParseRunFlags(req.Args)
	st := bwruntime.Status{Outcome: bwruntime.OutcomeSetupFailed, ExitStatus: bwruntime.ExitSetup, Nonce: flags.Nonce}
	switch {
	case err != nil:
		st.Message = err.Error()
	case flags.StatusFD >= 0 || flags.StatusFile != "":
		st.Message = "--status-fd and --status-file do not apply to bwrun --serve: the status is the reply"
	case len(args) < 3 || args[1] != "--" || args[2] == "":
		st.Message = "expected INVOCATION -- CMD [ARG...] after the options"
	case args[0] != s.cfg.InvPath:
		st.Message = fmt.Sprintf("this server runs %s, not %s", s.cfg.InvPath, args[0])
	}
	if st.Message != "" {
		fmt.Fprintf(files[2], "bwrun: %s\n", st.Message)
		return st, nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The signal handler sets ended, then cancels the stop it finds
	// under mu: a signal after this check cancels ctx, one before it
	// is seen here.
	s.mu.Lock()
	ending := s.ended.Load()
	if !ending {
		s.stop = cancel
	}
	s.mu.Unlock()
	if ending {
		st.Message = ErrEnding.Error()
		fmt.Fprintf(files[2], "bwrun: %s\n", st.Message)
		return st, nil
	}
	defer func() {
		s.mu.Lock()
		s.stop = nil
		s.mu.Unlock()
	}()
	inv, data, lerr := bwruntime.LoadTrustedData(s.cfg.InvPath)
	if lerr == nil && !s.sameData(data) {
		st.Outcome, st.Message = bwruntime.OutcomeStale, ErrChanged.Error()
		st.StalePaths = []string{s.cfg.InvPath}
		fmt.Fprintf(files[2], "bwrun: %s\n", st.Message)
		return st, ErrChanged
	}
	watched := make(chan struct{})
	go watchConn(c, cancel, watched)
	env := req.Env
	if env == nil {
		env = []string{}
	}
	flags.Options.Environ = env
	st = bwruntime.RunCommand(ctx, bwruntime.Command{
		InvPath: s.cfg.InvPath, Inv: inv, Data: data, LoadErr: lerr,
		Argv:    args[2:],
		Options: flags.Options,
		Stdin:   files[0], Stdout: files[1], Stderr: files[2],
		Signals: s.never,
	})
	st.Nonce = flags.Nonce
	// Stop the watch of c (its read returns) before c is written and
	// closed.
	_ = unix.Shutdown(c, unix.SHUT_RD)
	<-watched
	if lerr != nil {
		return st, lerr
	}
	return st, nil
}

// watchConn reads c until Kill, end of file or an error, and cancels
// the run on each; it returns (closing done) at end of file or error.
func watchConn(c int, cancel context.CancelFunc, done chan<- struct{}) {
	defer close(done)
	b := make([]byte, 64)
	for {
		n, err := unix.Read(c, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			cancel()
			return
		}
		for _, x := range b[:n] {
			if x == Kill {
				cancel()
			}
		}
	}
}
