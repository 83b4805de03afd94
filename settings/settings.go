// Package settings is the first stage of bwpolicy's pipeline: it reads a
// settings file (a Hermes config.yaml or a standalone settings file),
// keeps the YAML positions of every key, and decodes the bubblewrap
// settings into Settings once the schema stage has accepted them.
package settings

// Seed defaults (docs/settings.md, Every key); the CUE profile definition carries the same
// values and a test keeps them in step.
const (
	DefaultProfile    = "network"
	DefaultMemoryMB   = 256
	DefaultCPUSeconds = 30
	DefaultMaxProcs   = 256
)

// DefaultTmpMB is the size bound of each tmpfs of the sandbox (/tmp,
// /dev/shm) when the settings name none (S3).
const DefaultTmpMB = 256

// Settings are the user's sandbox settings. Pointer and nil fields are
// "not set": the profile's defaults apply.
type Settings struct {
	Profile    string `json:"profile,omitempty"`
	MemoryMB   *int64 `json:"memory_mb,omitempty"`
	CPUSeconds *int64 `json:"cpu_seconds,omitempty"`
	MaxProcs   *int64 `json:"max_procs,omitempty"`
	// TmpMB bounds each tmpfs of the sandbox in MiB (nil: DefaultTmpMB;
	// 0: unbounded, warned).
	TmpMB *int64 `json:"tmp_mb,omitempty"`
	Binds []Bind `json:"binds,omitempty"`

	// Cwd, HomeMode, DegradedMode and SandboxDir are the terminal.* keys
	// of a Hermes config, or top-level keys of a standalone file.
	Cwd          string `json:"cwd,omitempty"`
	HomeMode     string `json:"home_mode,omitempty"`
	DegradedMode string `json:"degraded_mode,omitempty"`
	SandboxDir   string `json:"sandbox_dir,omitempty"`
	// SandboxID names this environment's private state and scratch
	// directories (bwpolicy compile --sandbox-id).
	SandboxID string `json:"sandbox_id,omitempty"`
	// Staged is StagedAll (the default) or StagedSession: which part of
	// Hermes' staged-data roots a sandbox with an ID sees (S6).
	Staged string `json:"staged,omitempty"`

	// Extensions beyond the seed (docs/protections.md, "Beyond the seed (H)").
	Hide    []string       `json:"hide,omitempty"`
	Env     *EnvPolicy     `json:"env,omitempty"`
	Seccomp *SeccompPolicy `json:"seccomp,omitempty"`
	Protect *ProtectPolicy `json:"protect,omitempty"`
	Network *NetworkPolicy `json:"network,omitempty"`
	Home    *HomePolicy    `json:"home,omitempty"`
}

// The home layouts (H10).
const (
	// HomeAllowlist rebuilds the home directory as a tmpfs with only its
	// non-dot entries and the allowed dot entries bound back.
	HomeAllowlist = "allowlist"
	// HomeDenylist shows the home directory with the denied paths masked.
	HomeDenylist = "denylist"
)

// HomePolicy chooses the home directory's layout (H10).
type HomePolicy struct {
	// Layout is HomeAllowlist (the default) or HomeDenylist.
	Layout string `json:"layout,omitempty"`
	// Allow are more dot entries (relative to HOME, "~/" allowed) to
	// bind back read-only in the allowlist layout.
	Allow []string `json:"allow,omitempty"`
}

// The staged-data modes (S6).
const (
	// StagedAll binds each staged-data root (HERMES_HOME/attachments,
	// HERMES_HOME/cache/documents) whole, read-only: every session's
	// files, as Hermes' own backend does.
	StagedAll = "all"
	// StagedSession binds only <root>/<sandbox ID> of each root,
	// read-only: this environment's own staged files.
	StagedSession = "session"
)

// StagedMode returns the staged-data mode set, else StagedAll.
func (s *Settings) StagedMode() string {
	if s.Staged != "" {
		return s.Staged
	}
	return StagedAll
}

// HomeLayout returns the home layout set, else HomeAllowlist.
func (s *Settings) HomeLayout() string {
	if s.Home != nil && s.Home.Layout != "" {
		return s.Home.Layout
	}
	return HomeAllowlist
}

// Bind is one extra host directory mounted into the sandbox.
type Bind struct {
	Src      string `json:"src"`
	Dest     string `json:"dest,omitempty"`
	Readonly *bool  `json:"readonly,omitempty"`
}

// Target returns the bind's destination: Dest, or Src when Dest is empty.
func (b Bind) Target() string {
	if b.Dest == "" {
		return b.Src
	}
	return b.Dest
}

// IsReadonly returns the bind's readonly flag, true when unset.
func (b Bind) IsReadonly() bool { return b.Readonly == nil || *b.Readonly }

// EnvPolicy is the environment policy (H5).
type EnvPolicy struct {
	Allow []string `json:"allow,omitempty"`
	Strip []string `json:"strip,omitempty"`
}

// SeccompPolicy relaxes named seccomp groups (H2).
type SeccompPolicy struct {
	Allow []string `json:"allow,omitempty"`
}

// ProtectPolicy leaves named H9 entries writable (each with a warning).
type ProtectPolicy struct {
	Allow []string `json:"allow,omitempty"`
	// Git is "read-only" to keep every existing .git of the writable
	// directories (the top one and the repositories below) read-only as a
	// whole: no commit, branch or fetch inside, and no window for a
	// concurrent host git to run what a command plants there.
	Git string `json:"git,omitempty"`
}

// NetworkPolicy restricts TCP ports under the network profile (H3).
type NetworkPolicy struct {
	TCPConnect []int `json:"tcp_connect,omitempty"`
	TCPBind    []int `json:"tcp_bind,omitempty"`
	// UDP false refuses datagram sockets on AF_INET/AF_INET6 (nil or
	// true: allowed).
	UDP *bool `json:"udp,omitempty"`
}

// TmpMBOrDefault returns tmp_mb as set, else DefaultTmpMB.
func (s *Settings) TmpMBOrDefault() int64 {
	if s.TmpMB != nil {
		return *s.TmpMB
	}
	return DefaultTmpMB
}

// TmpBytes returns the size bound of each tmpfs in bytes; 0 is unbounded.
func (s *Settings) TmpBytes() uint64 {
	if mb := s.TmpMBOrDefault(); mb > 0 {
		return uint64(mb) << 20
	}
	return 0
}
