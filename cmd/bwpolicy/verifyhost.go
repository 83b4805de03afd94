package main

import (
	"github.com/bwpolicy/bwpolicy/runtime"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/verify"
)

// verifyOnHost checks on this host what bwrun checks before it runs the
// invocation read from file (runtime.CheckBwrap and
// runtime.CheckInvocationFile): an invocation that passes Check but that
// bwrun would refuse, or whose bwrap is not the binary it was compiled
// for, is reported. It depends on the host, unlike Check: an invocation
// compiled on another machine fails bwrap-binary here. It lives here,
// not in verify, so that verify (the compile side) never imports the
// launcher.
func verifyOnHost(inv *invocation.Invocation, file string) []verify.Violation {
	var out []verify.Violation
	if inv.Bwrap.Path != "" {
		if err := runtime.CheckBwrap(inv); err != nil {
			out = append(out, verify.Violation{Invariant: verify.InvBwrapBinary, Path: inv.Bwrap.Path, Detail: err.Error()})
		}
	}
	if err := runtime.CheckInvocationFile(file, inv); err != nil {
		out = append(out, verify.Violation{Invariant: verify.InvInvocationFile, Path: file, Detail: err.Error()})
	}
	return out
}
