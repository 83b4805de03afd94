// Package serve is bwrun's serve mode (bwrun --serve INVOCATION): a
// runtime that lives as long as the environment that started it (the
// Hermes plugin), holds the invocation, loaded and verified as bwrun
// loads it, and runs the commands asked on its socket one at a time
// through the one per-command path bwrun's CLI takes
// (runtime.RunCommand): stale mark, pending scan, journal, sandbox,
// post-command scan, watcher. What it saves per command is bwrun's
// process start (the Go runtime, the binary's loading), not a check.
//
// The socket lives in INVOCATION.serve (mode 0700, beside the ledger,
// hidden from the sandbox); a peer is answered only when it has the
// server's uid and pid namespace (watch.CheckPeer), and Dial checks the
// server the same way (watch.Connect). Requests are run one at a time,
// in the order they connect; one that waits is read once the one
// before has been answered. The reply to a request (wire.go) is
// bwrun's status record with the caller's nonce, sent only once the
// post-command scan has finished; a caller that disconnects or sends
// Kill has the sandbox killed (before it starts: nothing runs), and the
// scan still runs to its end. The server exits when its parent's pipe
// closes (the plugin died), on SIGTERM/SIGINT/SIGHUP/SIGQUIT (after the
// command running, if any, is killed and scanned), and when the
// invocation on disk is no longer the one it holds; requests still
// queued then, and any read once a signal came, are answered
// setup-failed (ErrEnding) and run nothing.
package serve
