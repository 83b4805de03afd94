// Package runtime is bwpolicy's per-command path (the launcher): it
// takes a frozen invocation (package invocation), re-checks the host
// state it was compiled under, sets the resource limits and runs bwrap
// (start, set up, supervise, finish), then checks what the command left
// behind (H9).
//
// It depends on the standard library and golang.org/x/sys only, so that
// cmd/bwrun starts in about a millisecond and never pays for the
// compiler. The format lives in runtime/invocation and the host probes
// (kernel, Landlock ABI, bwrap features) in runtime/hostprobe.
package runtime
