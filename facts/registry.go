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

// Staleness says how a host change after compiling is caught.
type Staleness string

// The ways a protection goes stale.
const (
	// StalePrecondition: the path (and each component on the way) is a
	// precondition; bwrun refuses the invocation when it changed.
	StalePrecondition Staleness = "precondition"
	// StaleListing: the directories a glob listed are preconditions with
	// their mtime; a new match makes the invocation stale.
	StaleListing Staleness = "listing"
	// StaleMountTable: found in /proc/self/mountinfo when compiling; a
	// mount added later is not seen until the next compile.
	StaleMountTable Staleness = "mount-table"
	// StalePostCommand: a precondition, and bwrun's post-command scan
	// sets aside what a command created there.
	StalePostCommand Staleness = "post-command"
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
	// Gatherer is the facts function that finds the paths.
	Gatherer string
	// What says, in a few words, what the row protects (docs, --explain
	// of the registry).
	What string
	// ExplainSource is the explain output's source for a path of the
	// row: "profile:FIELD" and "settings:hide" name a position the
	// compiler resolves; anything else is literal text, in which
	// {entry}, {var} and {mirror} are replaced.
	ExplainSource string
	Stale         Staleness
}

// Protections is the registry, in the order the rows are documented.
var Protections = []Protection{
	{Source: SourceHomeEntry, Reason: ReasonHomeEntry, Rule: invocation.ReasonHiddenPaths, Role: RoleMask, Setting: SettingProfile,
		Gatherer: "hiddenPaths", What: "the credential entries of the home directory the profile lists (hidden_home)",
		ExplainSource: "profile:hidden_home", Stale: StalePrecondition},
	{Source: SourceCredentialStore, Reason: ReasonCredential, Rule: invocation.ReasonCredentialLocations, Role: RoleMask, Setting: SettingProfile,
		Gatherer: "hiddenPaths", What: "the credential stores of the home directory (password managers, cloud CLIs, keyrings)",
		ExplainSource: "profile:hidden_home", Stale: StalePrecondition},
	{Source: SourceHermesHome, Reason: ReasonHomeEntry, Scope: invocation.ScopeHermesHome, Rule: invocation.ReasonHiddenPaths, Role: RoleMask, Setting: SettingProfile,
		Gatherer: "hiddenPaths", What: "the Hermes homes (HERMES_HOME and ~/.hermes)",
		ExplainSource: "host: the Hermes home", Stale: StalePrecondition},
	{Source: SourceHide, Reason: ReasonHide, Rule: invocation.ReasonUserHidePaths, Role: RoleMask, Setting: SettingHide,
		Gatherer: "expandHide", What: "the settings' hide entries, globs expanded",
		ExplainSource: "settings:hide", Stale: StaleListing},
	{Source: SourceCredentialVar, Reason: ReasonCredential, Rule: invocation.ReasonCredentialLocations, Role: RoleMask, Setting: SettingProfile,
		Gatherer: "envCredentials", What: "the paths credential variables name ($AWS_SHARED_CREDENTIALS_FILE, …)",
		ExplainSource: "host: ${var} names {entry}", Stale: StalePrecondition},
	{Source: SourceMovedDir, Reason: ReasonCredential, Rule: invocation.ReasonCredentialLocations, Role: RoleMask, Setting: SettingProfile,
		Gatherer: "movedStores", What: "the denied entries of .config, .local/share, .local/state and .cache where an XDG base variable moves that directory ($XDG_CONFIG_HOME/gh, …)",
		ExplainSource: "host: ${var} names the directory that holds {entry}", Stale: StalePrecondition},
	{Source: SourceMountMirror, Reason: ReasonInherited, Rule: invocation.ReasonCredentialLocations, Role: RoleMask, Setting: SettingProfile,
		Gatherer: "mirrors", What: "second locations of a hidden path that another mount of its filesystem shows",
		ExplainSource: "host: a second mount shows {mirror} here (" + MountinfoPath + ")", Stale: StaleMountTable},
	{Source: SourceHomeMirror, Reason: ReasonHomeMirror, Rule: invocation.ReasonHomeLayout, Role: RoleMask, Setting: SettingProfile,
		Gatherer: "mirrors", What: "second locations of the home directory, or of a part of it the home layout leaves out, that another mount of its filesystem shows (hidden whole)",
		ExplainSource: "host: a second mount shows {mirror} here (" + MountinfoPath + ")", Stale: StaleMountTable},
	{Source: SourcePasswdHome, Reason: ReasonHomeMirror, Rule: invocation.ReasonHomeLayout, Role: RoleMask, Setting: SettingProfile,
		Gatherer: "passwdHome", What: "the user's home in the password database when HOME names another directory: hidden whole, or its denied entries when one of the two lies in the other",
		ExplainSource: "host: {entry} is (in) the user's home in the password database, which HOME does not name", Stale: StalePrecondition},
	{Source: SourceHostSocket, Reason: ReasonHostSocket, Rule: invocation.ReasonPrivilegedHostSockets, Role: RoleMask, Setting: SettingProfile,
		Gatherer: "privilegedSockets", What: "privileged host sockets (container runtimes, systemd, polkit)",
		ExplainSource: "host: a privileged host socket (facts.PrivilegedSockets)", Stale: StalePrecondition},
	{Source: SourceStartupSecret, Reason: ReasonCredential, Rule: invocation.ReasonCredentialLocations, Role: RoleMask, Setting: SettingProfile,
		Gatherer: "rcSecrets", What: "the shell start-up files of the home directory that hold a secret (an exported token, a password)",
		ExplainSource: "host: {entry} holds a secret", Stale: StalePrecondition},
	{Source: SourceUserSocket, Reason: ReasonHostSocket, Rule: invocation.ReasonPrivilegedHostSockets, Role: RoleMask, Setting: SettingProfile,
		Gatherer: "userSockets", What: "the Unix sockets the user owns that the sandbox would show (ssh ControlMaster, an agent or multiplexer outside /tmp and /run/user)",
		ExplainSource: "host: a socket of the user's own, bound when compiling (" + UnixSocketsPath + ")", Stale: StalePrecondition},
	{Source: SourceRunUser, Reason: ReasonAgentSockets, Rule: invocation.ReasonAgentSockets, Role: RoleMask, Setting: SettingProfile,
		Gatherer: "Gather (RunUser)", What: "agent and bus sockets under /run/user/<uid>",
		ExplainSource: "profile:run_user", Stale: StalePrecondition},
	{Source: SourceDockerSocket, Reason: ReasonAgentSockets, Rule: invocation.ReasonAgentSockets, Role: RoleMask, Setting: SettingProfile,
		Gatherer: "Gather (DockerSockets)", What: "the docker socket",
		ExplainSource: "profile:docker_socket", Stale: StalePrecondition},
	{Source: SourceProtectedEntry, Reason: ReasonProtected, Rule: invocation.ReasonProtectedEntries, Role: RoleProtect,
		Gatherer: "protectedEntries", What: "entries of writable directories that run outside the sandbox later (git config and hooks, rc files)",
		ExplainSource: "host: {entry} exists", Stale: StalePostCommand},
	{Source: SourceProfileHomeEntry, Reason: ReasonProtected, Scope: invocation.ScopeProfileHome, Rule: invocation.ReasonProtectedEntries, Role: RoleProtect,
		Gatherer: "protectedEntries", What: "the same entries in the profile home (home_mode: profile)",
		ExplainSource: "host: {entry} exists", Stale: StalePostCommand},
	{Source: SourceScratch, Reason: ReasonException, Rule: invocation.ReasonHermesExceptions, Role: RoleException,
		Gatherer: "Gather (Scratch)", What: "the Hermes scratch directory (TMPDIR)",
		ExplainSource: "host: HERMES_HOME/cache/scratch", Stale: StalePrecondition},
	{Source: SourceStateDir, Reason: ReasonException, Rule: invocation.ReasonHermesExceptions, Role: RoleException,
		Gatherer: "stateDirs", What: "the backend's state directories, read-only",
		ExplainSource: "host: HERMES_HOME/sandboxes/bwrap-*", Stale: StalePrecondition},
	{Source: SourceSandboxState, Reason: ReasonException, Rule: invocation.ReasonHermesExceptions, Role: RoleException,
		Gatherer: "sandboxEnv", What: "this environment's own state directory (--sandbox-id)",
		ExplainSource: "host: HERMES_HOME/sandboxes/bwrap-<id>", Stale: StalePrecondition},
	{Source: SourceSandboxScratch, Reason: ReasonException, Rule: invocation.ReasonHermesExceptions, Role: RoleException,
		Gatherer: "sandboxEnv", What: "this environment's own scratch directory (--sandbox-id)",
		ExplainSource: "host: HERMES_HOME/cache/scratch/hermes-bwrap-<id>", Stale: StalePrecondition},
	{Source: SourceStaged, Reason: ReasonException, Rule: invocation.ReasonHermesExceptions, Role: RoleException,
		Gatherer: "stagedRoots", What: "Hermes' staged files, read-only",
		ExplainSource: "host: HERMES_HOME/<staged root>", Stale: StalePrecondition},
	{Source: SourceProfileHome, Reason: ReasonException, Rule: invocation.ReasonHermesExceptions, Role: RoleException,
		Gatherer: "Gather (ProfileHome)", What: "the profile home (home_mode: profile)",
		ExplainSource: "settings:home_mode", Stale: StalePrecondition},
	{Source: SourceCABundle, Reason: ReasonCABundle, Rule: invocation.ReasonCABundles, Role: RoleException,
		Gatherer: "Gather (CABundles)", What: "a CA bundle a variable names, inside a hidden path",
		ExplainSource: "host: ${var}", Stale: StalePrecondition},
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

// ReasonsOf returns the distinct reasons of the rows with role r, in
// registry order.
func ReasonsOf(r Role) []Reason {
	var out []Reason
	seen := map[Reason]bool{}
	for _, p := range Protections {
		if p.Role == r && p.Reason != ReasonInherited && !seen[p.Reason] {
			seen[p.Reason] = true
			out = append(out, p.Reason)
		}
	}
	return out
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
