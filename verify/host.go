package verify

// The invariants `bwpolicy verify --host` proves (cmd/bwpolicy's
// verifyOnHost: bwrun's own checks, which live in runtime; verify itself
// never reads the host) on the host that runs the invocation.
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

// HostInvariants lists the invariants `bwpolicy verify --host` proves.
var HostInvariants = []string{InvBwrapBinary, InvInvocationFile}
