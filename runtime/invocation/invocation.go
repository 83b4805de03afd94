// Package invocation is the frozen invocation format: the types the
// compiler emits and the runtime executes (Invocation and its parts),
// reading and strict decoding (Load, Decode, with a fast path generated
// from the struct tags), the consistency checks every invocation must
// pass (Validate), and bwrap's option table (BwrapArity).
//
// It depends on the standard library only: cmd/bwrun reads an
// invocation on every command, and the compiler, doctor and the
// benchmarks share this one definition of the format. verify keeps an
// option table and replay of its own on purpose (an independent checker
// must not share a mis-parse with the compiler); a test holds the two
// tables equal.
package invocation

import "fmt"

// Format is the version string every invocation carries in its "format"
// field. The runtime refuses any other value.
const Format = "bwpolicy.invocation/v1"

// Invocation is the frozen, explained bwrap invocation that the compiler
// emits and the runtime executes. Its JSON form is described by
// schema/invocation.schema.json; the compiler writes it deterministically
// (same inputs, same bytes).
type Invocation struct {
	Format  string `json:"format"`
	Profile string `json:"profile"`
	Bwrap   Bwrap  `json:"bwrap"`
	// FDs lists the file descriptors the runtime must provide to bwrap,
	// at exactly the numbers that Bwrap.Args mention.
	FDs      []FD     `json:"fds,omitempty"`
	Rlimits  Rlimits  `json:"rlimits"`
	Env      Env      `json:"env"`
	Chdir    string   `json:"chdir"`
	Writable []string `json:"writable"`
	Hidden   []string `json:"hidden"`
	// Home declares the home layout (H10) for a verifier; nil when the
	// home directory is shown as it is.
	Home *HomeLayout `json:"home,omitempty"`
	// Scratch is the environment's private scratch directory (compile
	// --sandbox-id), re-created by the runtime when pruned.
	Scratch string `json:"scratch,omitempty"`
	// DegradedMode is the settings' degraded_mode ("warn", "fail"; empty
	// when unset: warn), for the backend that runs the invocation.
	DegradedMode  string         `json:"degraded_mode,omitempty"`
	Preconditions []Precondition `json:"preconditions"`
	Seccomp       *Seccomp       `json:"seccomp,omitempty"`
	Landlock      *Landlock      `json:"landlock,omitempty"`
	// Expose declares what `bwrun --expose FILE` may show the command
	// (ExposeFile); nil: nothing.
	Expose *Expose `json:"expose,omitempty"`
	// Warnings are for people: ReadFileToRun checks them as strictly
	// as Decode does but does not keep them.
	Warnings []Warning `json:"warnings" fastdecode:"checkonly"`
	// Explain says why each group of Bwrap.Args is there: the rows
	// cover the arguments in order, together all of them (Validate).
	Explain []Explain `json:"explain"`
}

// HomeLayout is the allowlist home layout an invocation mounts (H10):
// Dirs are rebuilt as a tmpfs (Dir, the home directory, first); inside
// them only non-dot entries of Dir and the Allowed paths may show host
// content (besides the S6/S8 exceptions).
type HomeLayout struct {
	Dir     string   `json:"dir"`
	Dirs    []string `json:"dirs"`
	Allowed []string `json:"allowed"`
}

// Bwrap says which bwrap to run and with which arguments.
type Bwrap struct {
	// Path is the absolute path of the bwrap binary found at compile time.
	Path string `json:"path"`
	// Requires lists the bwrap options the arguments use that not every
	// bwrap supports (for example "--disable-userns"). The runtime refuses
	// to run when the bwrap at Path lacks one of them.
	Requires []string `json:"requires"`
	// Args is every argument before "--".
	Args []string `json:"args"`
	// Identity is the file the compiler probed at Path. The runtime
	// executes bwrap only when the file at Path still has this identity
	// (and through the descriptor it checked, see CheckBwrap).
	Identity FileIdentity `json:"identity"`
}

// FileIdentity tells one file from another on this host: a replaced or
// rewritten file differs in at least one field (a package upgrade
// changes the inode or the modification time).
type FileIdentity struct {
	Dev   uint64 `json:"dev"`
	Ino   uint64 `json:"ino"`
	Size  int64  `json:"size"`
	MTime int64  `json:"mtime_ns"`
}

// FD kinds: what the runtime opens at an FD's number.
const (
	// FDEmpty is an empty stream (the runtime opens /dev/null); bwrap's
	// --ro-bind-data reads it to mask a file as zero-length.
	FDEmpty = "empty"
	// FDSeccomp is the seccomp program of Invocation.Seccomp.
	FDSeccomp = "seccomp"
	// FDInfo receives bwrap's --info-fd JSON (the sandbox's child pid).
	FDInfo = "info"
	// FDBlock is read by bwrap's --block-fd: bwrap waits on it until the
	// runtime has applied the in-namespace limits.
	FDBlock = "block"
	// FDStatus receives bwrap's --json-status-fd documents (the command's
	// exit code), which tells a set-up failure from the command's status.
	FDStatus = "status"
)

// FD is one file descriptor handed to bwrap.
type FD struct {
	Num  int    `json:"fd"`
	Kind string `json:"kind"`
}

// Rlimits are the per-process limits. Zero means "not set".
type Rlimits struct {
	// AsBytes is RLIMIT_AS, set before bwrap starts.
	AsBytes uint64 `json:"as_bytes"`
	// CPUSeconds is RLIMIT_CPU, set before bwrap starts.
	CPUSeconds uint64 `json:"cpu_seconds"`
	// NProc is RLIMIT_NPROC, set on the sandbox's first process inside its
	// user namespace (max_procs + 2), so that it counts per namespace.
	NProc uint64 `json:"nproc"`
	// NoFile is RLIMIT_NOFILE, set before bwrap starts: open files per
	// process, so that the sandbox's processes together cannot fill the
	// host's file table (0: not set, an older invocation).
	NoFile uint64 `json:"nofile,omitempty"`
	// TmpBytes is the size bound of /tmp and /dev/shm (tmp_mb; masks get
	// a smaller one); 0 means they are unbounded, which the compiler
	// warned about.
	TmpBytes uint64 `json:"tmp_bytes,omitempty"`
	// MemoryMax is memory.max of the sandbox's own cgroup, used where
	// the host delegates a cgroup v2 memory controller to the user
	// (cgroup.MemoryFactor × memory_mb); 0: no cgroup.
	MemoryMax uint64 `json:"memory_max,omitempty"`
}

// Env is the environment policy applied to the command.
type Env struct {
	// Unset names variables removed from the environment.
	Unset []string `json:"unset"`
	// UnsetPatterns are shell-style patterns (path.Match syntax, compared
	// without regard to case) of names removed from the environment
	// unless listed in Allow: the settings' env.strip. The built-in
	// secret names and values (SecretName, SecretValue) are removed
	// whatever the invocation says (FilterEnv).
	UnsetPatterns []string `json:"unset_patterns,omitempty"`
	// Allow names variables kept (compared without regard to case) even
	// when a pattern, SecretName or SecretValue matches them.
	Allow []string `json:"allow,omitempty"`
	// Set holds variables set for the command (TMPDIR, HOME, ...).
	Set map[string]string `json:"set"`
	// UnsetAfterRC names variables removed again after a shell's rc files
	// have run (S4), by prefixing the -c script of a POSIX-family shell
	// (see UnsetAfterRC). Each is a shell identifier.
	UnsetAfterRC []string `json:"unset_after_rc,omitempty"`
	// CredentialPaths are the paths each credential variable named when
	// compiling (H7), by variable; CheckCredentialEnv compares the
	// run-time environment with them.
	CredentialPaths map[string][]string `json:"credential_paths,omitempty"`
	// Checked holds, by name, the digest (EnvDigest) of every host
	// variable the compile read (the protection registry's variables:
	// facts.EnvVars), "" for one unset or empty. bwrun refuses an
	// environment in which any differs: a protection found through a
	// variable is only as good as the variable's value.
	Checked map[string]string `json:"checked,omitempty"`
}

// InstallHint tells how to install bubblewrap on the common
// distributions (for messages about a missing bwrap).
const InstallHint = "install bubblewrap: `apt install bubblewrap` (Debian/Ubuntu), `dnf install bubblewrap` (Fedora), `pacman -S bubblewrap` (Arch)"

// Precondition kinds.
const (
	KindAbsent  = "absent"
	KindFile    = "file"
	KindDir     = "dir"
	KindSymlink = "symlink"
	KindSocket  = "socket"
	KindOther   = "other"
	// KindDenied is a path this user cannot even lstat, for good: a
	// directory on the way denies search permission and belongs to
	// another user, so no process of this user (inside a sandbox or not)
	// can grant it (see runtime.Unreachable). Nothing is masked there; the
	// runtime checks that it is still denied.
	KindDenied = "denied"
)

// Missing reports whether kind says nothing a sandbox could reach is at
// the path: absent, or denied.
func Missing(kind string) bool { return kind == KindAbsent || kind == KindDenied }

// Precondition is one piece of host state the invocation was compiled
// under. The runtime lstat()s Path and refuses to run when the kind (or a
// symlink's target) differs.
type Precondition struct {
	Path string `json:"path"`
	// Names, when set, makes the row stand for one precondition per name:
	// Path/name has Kind (a file or a directory), each for Why; Path
	// itself is not checked by this row. The compiler writes the entries
	// the home layout binds back this way (H10): one row per directory
	// and kind instead of one per entry, in an invocation bwrun reads on
	// every command. Sorted, unique, each one path element. Expanded
	// lists the rows one per path.
	Names []string `json:"names,omitempty"`
	Kind  string   `json:"kind"`
	// Target is the symlink's target (readlink), for KindSymlink.
	Target string `json:"target,omitempty"`
	// MTime, when non-zero, is a directory's modification time (ns): set
	// for the directories a hide glob listed. When it changed, the runtime
	// lists that one directory (no walk) and refuses the invocation only
	// if an entry that is not a recorded precondition matches one of
	// Match, or, with NewDirs, is a new directory (a "**" glob would
	// descend into it). Other new files (build output) are fine.
	MTime int64 `json:"mtime,omitempty"`
	// Match holds the glob patterns (path.Match syntax, one name) that
	// new entries of this directory must not match.
	Match []string `json:"match,omitempty"`
	// NewDirs says a new subdirectory makes the invocation stale.
	NewDirs bool `json:"new_dirs,omitempty"`
	// The home layout's directory HOME carries HomeNewEntries among its
	// Match: a non-dot entry made after the compile is not bound back,
	// and a dot entry made a symlink has no chain held, so either makes
	// the invocation stale (the plugin recompiles once and the next
	// command sees the entry, or runs with the link's target held).
	// Why is the rule that depends on this path (S5, H9...), or
	// ReasonBinds, ReasonPathComponent.
	Why Reason `json:"why"`
	// Scope narrows Why: the profile home's protected entries (H9), the
	// Hermes homes (S5), a directory a hide glob listed (H4).
	Scope Scope `json:"scope,omitempty"`
	// Bind is the index of the settings' bind (binds[Bind]) a
	// ReasonBinds precondition is for.
	Bind int `json:"bind,omitempty"`
}

// Seccomp carries a compiled seccomp-bpf program.
type Seccomp struct {
	// Arch is the audit architecture the program was built for
	// (for example "x86_64").
	Arch string `json:"arch"`
	// Program is the raw sock_filter array (8 bytes a record,
	// native-endian), base64 in JSON.
	Program []byte `json:"program"`
	// Blocked lists the syscall groups the program denies.
	Blocked []string `json:"blocked"`
}

// Landlock carries the Landlock rules the runtime applies before bwrap
// starts (network and scope rules only; filesystem rules would break
// bwrap's own set-up).
type Landlock struct {
	// MinABI is the lowest Landlock ABI that enforces all of the rules.
	MinABI int `json:"min_abi"`
	// TCPConnect and TCPBind are the allowed ports; nil means unrestricted.
	TCPConnect []uint16 `json:"tcp_connect,omitempty"`
	TCPBind    []uint16 `json:"tcp_bind,omitempty"`
	// ScopeAbstractUnix and ScopeSignal request Landlock scoping (ABI 6).
	ScopeAbstractUnix bool `json:"scope_abstract_unix"`
	ScopeSignal       bool `json:"scope_signal"`
}

// Expose is the invocation's declaration for `bwrun --expose FILE`: one
// file under one of Roots (directories the sandbox otherwise hides, such
// as Hermes' cache/spillover) shown read-only to one run.
type Expose struct {
	// Roots are the directories (absolute, clean, their real paths: no
	// symlink in them) under which a file may be exposed.
	Roots []string `json:"roots"`
	// BindFD is true when the compiled-for bwrap has --ro-bind-fd: the
	// file is bound through the descriptor bwrun opened; otherwise its
	// content (at most ExposeDataMax bytes) is copied with --ro-bind-data.
	BindFD bool `json:"bind_fd"`
}

// Warning is a diagnostic that did not stop compilation.
type Warning struct {
	// Rule is the diagnostic's rule: a Reason, a stage or an
	// organisation's rule (custom.PKG/NAME).
	Rule    string `json:"rule"`
	Message string `json:"message"`
	// Source is "file:line:col" where known.
	Source string `json:"source,omitempty"`
}

// Explain says why a group of consecutive bwrap arguments is there.
type Explain struct {
	// N is how many arguments the group has: it starts where the
	// previous row's ended.
	N int `json:"n"`
	// Args are those arguments. They are not in the file (each argument
	// is written once, in bwrap.args): Decode fills them in as a part
	// of Bwrap.Args, and the compiler sets them with N.
	Args   []string `json:"-"`
	Rule   Reason   `json:"rule"`
	Reason string   `json:"reason"`
	Source string   `json:"source"`
}

// String renders the identity as "dev:ino size mtime".
func (id FileIdentity) String() string {
	return fmt.Sprintf("%d:%d %d bytes mtime %d", id.Dev, id.Ino, id.Size, id.MTime)
}

// HomeNewEntries is the Match pattern of the home layout's HOME row
// (Precondition.Match): every non-dot name.
const HomeNewEntries = "[^.]*"
