package facts

// This file is the registry of protections: one row per kind of host
// path the sandbox hides, keeps read-only or brings back. The compiler's
// masks and preconditions, bwrun's post-command check, verify's
// expectations (verify keeps its own list, held equal by a test), the
// policy input's "why" enum and the rule catalogue are derived from it
// or checked against it. Adding a protection is one row here, one
// gatherer that produces paths with the row's Source, and test cases.

import "github.com/bwpolicy/bwpolicy/runtime/invocation"

// Reason is why a path is protected, as recorded in the facts
// (Hidden.Why) and in the invocation's preconditions
// (invocation.Precondition.Why), read back by bwrun and verify. It is
// the invocation format's type: one spelling for every stage.
type Reason = invocation.Reason

// The reasons the rows record. Several sources share one reason (the H7
// stores, the paths credential variables name and the second mounts of
// hidden paths are all H7); a row's Scope tells the Hermes homes (S5)
// and the profile home's protected entries (H9) apart.
const (
	ReasonAgentSockets = invocation.ReasonAgentSockets          // /run/user/<uid>, the docker sockets
	ReasonHomeEntry    = invocation.ReasonHiddenPaths           // the profile's hidden home entries, the Hermes homes
	ReasonHide         = invocation.ReasonUserHidePaths         // the settings' hide entries
	ReasonCredential   = invocation.ReasonCredentialLocations   // credential stores and the paths credential variables name
	ReasonHostSocket   = invocation.ReasonPrivilegedHostSockets // privileged host sockets
	ReasonHomeMirror   = invocation.ReasonHomeLayout            // a second mount of what the home layout leaves out
	ReasonProtected    = invocation.ReasonProtectedEntries      // entries the host runs later (H9)
	ReasonException    = invocation.ReasonHermesExceptions      // bound back into the Hermes home's mask
	ReasonCABundle     = invocation.ReasonCABundles             // a CA bundle bound back into a mask
	// ReasonInherited marks a row whose paths keep the reason of the
	// path they stand for (a second mount of a hidden path is hidden
	// for the same reason).
	ReasonInherited Reason = ""
)

// Role is what a protection does to its paths.
type Role string

// The roles.
const (
	// RoleMask hides the path: an empty tmpfs over a directory, an empty
	// read-only file over anything else.
	RoleMask Role = "mask"
	// RoleException binds the path back, at its own place, inside a mask.
	RoleException Role = "exception"
	// RoleProtect binds the path read-only onto itself inside a writable
	// directory, its parents pinned.
	RoleProtect Role = "protect"
)

// Setting is the part of the settings a path of a row was asked for by,
// which a finding about it points at (the policy input's hidden.setting:
// the rules branch on it, never on a reason).
type Setting string

// The settings a mask row's paths answer to.
const (
	// SettingHide: the settings' hide entries (hide[i]).
	SettingHide Setting = "hide"
	// SettingProfile: the profile (its hidden_home, the Hermes home, what
	// the host holds): changed by choosing another profile or moving
	// the path.
	SettingProfile Setting = "profile"
)

// Source names one row: where the protected paths come from.
type Source string

// The sources, one per row of Protections.
const (
	SourceHomeEntry        Source = "home-entry"
	SourceCredentialStore  Source = "credential-store"
	SourceHermesHome       Source = "hermes-home"
	SourceHide             Source = "hide"
	SourceCredentialVar    Source = "credential-var"
	SourceMovedDir         Source = "moved-dir"
	SourceMountMirror      Source = "mount-mirror"
	SourceHomeMirror       Source = "home-mirror"
	SourcePasswdHome       Source = "passwd-home"
	SourceHostSocket       Source = "host-socket"
	SourceUserSocket       Source = "user-socket"
	SourceStartupSecret    Source = "startup-secret"
	SourceAllowedSecret    Source = "allowed-secret"
	SourceRunUser          Source = "run-user"
	SourceDockerSocket     Source = "docker-socket"
	SourceProtectedEntry   Source = "protected-entry"
	SourceProfileHomeEntry Source = "profile-home-entry"
	SourceScratch          Source = "scratch"
	SourceStateDir         Source = "state-dir"
	SourceSandboxState     Source = "sandbox-state"
	SourceSandboxScratch   Source = "sandbox-scratch"
	SourceStaged           Source = "staged"
	SourceProfileHome      Source = "profile-home"
	SourceCABundle         Source = "ca-bundle"
)

// Protection is one row of the registry.
type Protection struct {
	// Source names the row.
	Source Source
	// Reason is recorded for its paths, narrowed by Scope; Rule is the
	// rule the diagnostics and the explain output carry.
	Reason Reason
	Scope  invocation.Scope
	Rule   invocation.Reason
	Role   Role
	// Setting is what a finding about a path of a mask row points at.
	Setting Setting
	// Gather is the step of Gather that finds the row's paths
	// (gatherSteps holds the order).
	Gather Step
	// Env names the host variables the row's step reads: FromEnvironment
	// reads them (and no other: Host.Getenv panics on another), the
	// invocation records each one's digest, and bwrun refuses another
	// value (runtime.CheckCheckedEnv).
	Env []string
	// EnvByPaths says the row's variables are re-checked by the paths
	// they name (runtime.CheckCredentialEnv: each must be hidden), not
	// by value: the agent and credential variables a session sets after
	// compiling (SSH_AUTH_SOCK) keep the invocation good while what they
	// name stays hidden. Every other row's variables are checked by
	// value (CheckedVars).
	EnvByPaths bool
	// ExplainSource is the explain output's source for a path of the
	// row: "profile:FIELD" and "settings:hide" name a position the
	// compiler resolves; anything else is literal text, in which
	// {entry}, {var} and {mirror} are replaced.
	ExplainSource string
}

// Protections is the registry, in the order the rows are documented.
// Each row's comment says what it protects and how a host change after
// compiling is caught.
var Protections = []Protection{
	// the credential entries of the home directory the profile lists (hidden_home) (stale: a precondition).
	{Source: SourceHomeEntry, Reason: ReasonHomeEntry, Rule: invocation.ReasonHiddenPaths, Role: RoleMask, Setting: SettingProfile,
		Gather:        StepHiddenPaths,
		ExplainSource: "profile:hidden_home"},
	// the credential stores of the home directory (password managers, cloud CLIs, keyrings) (stale: a precondition).
	{Source: SourceCredentialStore, Reason: ReasonCredential, Rule: invocation.ReasonCredentialLocations, Role: RoleMask, Setting: SettingProfile,
		Gather:        StepHiddenPaths,
		ExplainSource: "profile:hidden_home"},
	// the Hermes homes (HERMES_HOME and ~/.hermes) (stale: a precondition).
	{Source: SourceHermesHome, Reason: ReasonHomeEntry, Scope: invocation.ScopeHermesHome, Rule: invocation.ReasonHiddenPaths, Role: RoleMask, Setting: SettingProfile,
		Gather:        StepHiddenPaths,
		ExplainSource: "host: the Hermes home"},
	// the settings' hide entries, globs expanded (stale: the listed directories are preconditions with their mtime).
	{Source: SourceHide, Reason: ReasonHide, Rule: invocation.ReasonUserHidePaths, Role: RoleMask, Setting: SettingHide,
		Gather:        StepHide,
		ExplainSource: "settings:hide"},
	// the paths credential variables name ($AWS_SHARED_CREDENTIALS_FILE, …) (stale: a precondition).
	{Source: SourceCredentialVar, Reason: ReasonCredential, Rule: invocation.ReasonCredentialLocations, Role: RoleMask, Setting: SettingProfile,
		Gather: StepEnvCredentials, Env: credentialVarNames(), EnvByPaths: true,
		ExplainSource: "host: ${var} names {entry}"},
	// the denied entries of .config, .local/share, .local/state and .cache where an XDG base variable moves that directory ($XDG_CONFIG_HOME/gh, …) (stale: a precondition).
	{Source: SourceMovedDir, Reason: ReasonCredential, Rule: invocation.ReasonCredentialLocations, Role: RoleMask, Setting: SettingProfile,
		Gather: StepMovedStores, Env: movedDirNames(),
		ExplainSource: "host: ${var} names the directory that holds {entry}"},
	// second locations of a hidden path that another mount of its filesystem shows (stale: read from the mount table when compiling).
	{Source: SourceMountMirror, Reason: ReasonInherited, Rule: invocation.ReasonCredentialLocations, Role: RoleMask, Setting: SettingProfile,
		Gather:        StepMirrors,
		ExplainSource: "host: a second mount shows {mirror} here (" + MountinfoPath + ")"},
	// second locations of the home directory, or of a part of it the home layout leaves out, that another mount of its filesystem shows (hidden whole) (stale: read from the mount table when compiling).
	{Source: SourceHomeMirror, Reason: ReasonHomeMirror, Rule: invocation.ReasonHomeLayout, Role: RoleMask, Setting: SettingProfile,
		Gather:        StepMirrors,
		ExplainSource: "host: a second mount shows {mirror} here (" + MountinfoPath + ")"},
	// the user's home in the password database when HOME names another directory: hidden whole, or its denied entries when one of the two lies in the other (stale: a precondition).
	{Source: SourcePasswdHome, Reason: ReasonHomeMirror, Rule: invocation.ReasonHomeLayout, Role: RoleMask, Setting: SettingProfile,
		Gather:        StepPasswdHome,
		ExplainSource: "host: {entry} is (in) the user's home in the password database, which HOME does not name"},
	// privileged host sockets (container runtimes, systemd, polkit) (stale: a precondition).
	{Source: SourceHostSocket, Reason: ReasonHostSocket, Rule: invocation.ReasonPrivilegedHostSockets, Role: RoleMask, Setting: SettingProfile,
		Gather:        StepPrivilegedSockets,
		ExplainSource: "host: a privileged host socket (facts.PrivilegedSockets)"},
	// the shell start-up files of the home directory that hold a secret (an exported token, a password on a command line), and the files they read into a secret variable (stale: a precondition).
	{Source: SourceStartupSecret, Reason: ReasonCredential, Rule: invocation.ReasonCredentialLocations, Role: RoleMask, Setting: SettingProfile,
		Gather:        StepRCSecrets,
		ExplainSource: "host: {entry} holds a secret or is read into one (hazard/secrets)"},
	// in the allowed home entries: logs (HomeAllowedLeft), text files that hold a secret, and the files their configuration names as credential stores (stale: a precondition).
	{Source: SourceAllowedSecret, Reason: ReasonCredential, Rule: invocation.ReasonCredentialLocations, Role: RoleMask, Setting: SettingProfile,
		Gather: StepAllowedSecrets, Env: []string{"XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL"},
		ExplainSource: "host: {entry} holds a secret, is named as a credential store, or is a log of an allowed entry (hazard/secrets)"},
	// the Unix sockets the user owns that the sandbox would show (ssh ControlMaster, an agent or multiplexer outside /tmp and /run/user) (stale: a precondition).
	{Source: SourceUserSocket, Reason: ReasonHostSocket, Rule: invocation.ReasonPrivilegedHostSockets, Role: RoleMask, Setting: SettingProfile,
		Gather:        StepUserSockets,
		ExplainSource: "host: a socket of the user's own, bound when compiling (" + UnixSocketsPath + ")"},
	// agent and bus sockets under /run/user/<uid> (stale: a precondition).
	{Source: SourceRunUser, Reason: ReasonAgentSockets, Rule: invocation.ReasonAgentSockets, Role: RoleMask, Setting: SettingProfile,
		Gather:        StepRunUser,
		ExplainSource: "profile:run_user"},
	// the docker socket (stale: a precondition).
	{Source: SourceDockerSocket, Reason: ReasonAgentSockets, Rule: invocation.ReasonAgentSockets, Role: RoleMask, Setting: SettingProfile,
		Gather:        StepDockerSockets,
		ExplainSource: "profile:docker_socket"},
	// entries of writable directories that run outside the sandbox later (git config and hooks, rc files) (stale: a precondition; the post-command scan sets aside what a command created).
	{Source: SourceProtectedEntry, Reason: ReasonProtected, Rule: invocation.ReasonProtectedEntries, Role: RoleProtect,
		Gather: StepProtected, Env: startupEnv(),
		ExplainSource: "host: {entry} exists"},
	// the same entries in the profile home (home_mode: profile) (stale: a precondition; the post-command scan sets aside what a command created).
	{Source: SourceProfileHomeEntry, Reason: ReasonProtected, Scope: invocation.ScopeProfileHome, Rule: invocation.ReasonProtectedEntries, Role: RoleProtect,
		Gather: StepProtected, Env: startupEnv(),
		ExplainSource: "host: {entry} exists"},
	// this environment's own state directory (--sandbox-id) (stale: a precondition).
	{Source: SourceSandboxState, Reason: ReasonException, Rule: invocation.ReasonHermesExceptions, Role: RoleException,
		Gather:        StepSandboxEnv,
		ExplainSource: "host: HERMES_HOME/sandboxes/bwrap-<id>"},
	// this environment's own scratch directory (--sandbox-id) (stale: a precondition).
	{Source: SourceSandboxScratch, Reason: ReasonException, Rule: invocation.ReasonHermesExceptions, Role: RoleException,
		Gather: StepSandboxEnv, Env: TempVars,
		ExplainSource: "host: HERMES_HOME/cache/scratch/hermes-bwrap-<id>"},
	// Hermes' staged files, read-only (stale: a precondition).
	{Source: SourceStaged, Reason: ReasonException, Rule: invocation.ReasonHermesExceptions, Role: RoleException,
		Gather:        StepSandboxEnv,
		ExplainSource: "host: HERMES_HOME/<staged root>"},
	// the profile home (home_mode: profile) (stale: a precondition).
	{Source: SourceProfileHome, Reason: ReasonException, Rule: invocation.ReasonHermesExceptions, Role: RoleException,
		Gather:        StepProfileHome,
		ExplainSource: "settings:home_mode"},
	// a CA bundle a variable names, inside a hidden path (stale: a precondition).
	{Source: SourceCABundle, Reason: ReasonCABundle, Rule: invocation.ReasonCABundles, Role: RoleException,
		Gather: StepCABundles, Env: CAVars,
		ExplainSource: "host: ${var}"},
}

// ProtectionOf returns the row of source s. Every source a gatherer
// produces has a row (a test holds them equal); an unknown one panics,
// so a protection is never reported under another's name.
func ProtectionOf(s Source) Protection {
	for _, p := range Protections {
		if p.Source == s {
			return p
		}
	}
	panic("facts: no protection row for source " + string(s))
}

// RuleOf returns the rule of the first row with reason r ("" when
// none has it).
func RuleOf(r Reason) invocation.Reason {
	for _, p := range Protections {
		if p.Reason == r {
			return p.Rule
		}
	}
	return ""
}
