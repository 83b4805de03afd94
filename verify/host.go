package verify

import (
	"github.com/bwpolicy/bwpolicy/runtime"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// The invariants CheckHost proves on the host that runs the invocation.
const (
	// InvBwrapBinary: bwrap.path is a regular ELF executable owned by
	// root or the caller, not writable by group or others, and the very
	// file the compiler probed (device, inode, size, modification time).
	InvBwrapBinary = "bwrap-binary"
	// InvInvocationFile: the invocation file is owned by the caller or
	// root, not writable by group or others, in directories nobody else
	// can write to, and outside the sandbox's own writable set.
	InvInvocationFile = "invocation-file"
)

// HostInvariants lists the invariants CheckHost proves.
var HostInvariants = []string{InvBwrapBinary, InvInvocationFile}

// CheckHost checks on this host what bwrun checks before it runs the
// invocation read from file (runtime.CheckBwrap and
// runtime.CheckInvocationFile): an invocation that passes Check but that
// bwrun would refuse, or whose bwrap is not the binary it was compiled
// for, is reported. It depends on the host, unlike Check: an invocation
// compiled on another machine fails bwrap-binary here.
func CheckHost(inv *invocation.Invocation, file string) []Violation {
	var out []Violation
	if inv.Bwrap.Path != "" {
		if err := runtime.CheckBwrap(inv); err != nil {
			out = append(out, Violation{InvBwrapBinary, inv.Bwrap.Path, err.Error()})
		}
	}
	if err := runtime.CheckInvocationFile(file, inv); err != nil {
		out = append(out, Violation{InvInvocationFile, file, err.Error()})
	}
	return out
}
