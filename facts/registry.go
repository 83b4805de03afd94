package facts

// This file is the registry of protections: one row per kind of host
// path the sandbox hides, keeps read-only or brings back. The compiler's
// masks and preconditions, bwrun's post-command check, verify's
// expectations (verify keeps its own list, held equal by a test), the
// policy input's "why" enum and the rule catalogue are derived from it
// or checked against it. Adding a protection is one row here, one
// gatherer that produces paths with the row's Source, and test cases.

import "github.com/bwpolicy/bwpolicy/runtime"

// Reason is why a path is protected, as recorded in the facts (Hidden.Why),
// in the invocation's preconditions (Precondition.Why) and read back by
// bwrun and verify. Its values are stable: they are part of the
// invocation format.
type Reason string

// The reasons. Several sources share one reason (the H7 stores, the
// paths credential variables name and the second mounts of hidden
// paths are all H7).
const (
	ReasonAgentSockets Reason = "S4"        // /run/user/<uid>, the docker sockets
	ReasonHomeEntry    Reason = "S5"        // the profile's hidden home entries
	ReasonHermesHome   Reason = "S5-hermes" // the Hermes homes
	ReasonHide         Reason = "H4"        // the settings' hide entries
	ReasonCredential   Reason = "H7"        // credential stores and the paths credential variables name
	ReasonHostSocket   Reason = "H8"        // privileged host sockets
	ReasonHomeMirror   Reason = "H10"       // a second mount of what the home layout leaves out
	ReasonProtected    Reason = runtime.WhyProtected
	ReasonProfileHome  Reason = runtime.WhyProfileHome
	ReasonException    Reason = "S6" // bound back into the Hermes home's mask
	ReasonCABundle     Reason = "S8" // a CA bundle bound back into a mask
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
	// Reason is recorded for its paths; Rule is the rule ID the
	// diagnostics and the explain output carry.
	Reason Reason
	Rule   string
	Role   Role
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
	{SourceHomeEntry, ReasonHomeEntry, "S5", RoleMask, "hiddenPaths", "the credential entries of the home directory the profile lists (hidden_home)", "profile:hidden_home", StalePrecondition},
	{SourceCredentialStore, ReasonCredential, "H7", RoleMask, "hiddenPaths", "the credential stores of the home directory (password managers, cloud CLIs, keyrings)", "profile:hidden_home", StalePrecondition},
	{SourceHermesHome, ReasonHermesHome, "S5", RoleMask, "hiddenPaths", "the Hermes homes (HERMES_HOME and ~/.hermes)", "host: the Hermes home", StalePrecondition},
	{SourceHide, ReasonHide, "H4", RoleMask, "expandHide", "the settings' hide entries, globs expanded", "settings:hide", StaleListing},
	{SourceCredentialVar, ReasonCredential, "H7", RoleMask, "envCredentials", "the paths credential variables name ($AWS_SHARED_CREDENTIALS_FILE, …)", "host: ${var} names {entry}", StalePrecondition},
	{SourceMovedDir, ReasonCredential, "H7", RoleMask, "movedStores", "the denied entries of .config, .local/share, .local/state and .cache where an XDG base variable moves that directory ($XDG_CONFIG_HOME/gh, …)", "host: ${var} names the directory that holds {entry}", StalePrecondition},
	{SourceMountMirror, ReasonInherited, "H7", RoleMask, "mirrors", "second locations of a hidden path that another mount of its filesystem shows", "host: a second mount shows {mirror} here (" + MountinfoPath + ")", StaleMountTable},
	{SourceHomeMirror, ReasonHomeMirror, "H10", RoleMask, "mirrors", "second locations of the home directory, or of a part of it the home layout leaves out, that another mount of its filesystem shows (hidden whole)", "host: a second mount shows {mirror} here (" + MountinfoPath + ")", StaleMountTable},
	{SourcePasswdHome, ReasonHomeMirror, "H10", RoleMask, "passwdHome", "the user's home in the password database when HOME names another directory: hidden whole, or its denied entries when one of the two lies in the other", "host: {entry} is (in) the user's home in the password database, which HOME does not name", StalePrecondition},
	{SourceHostSocket, ReasonHostSocket, "H8", RoleMask, "privilegedSockets", "privileged host sockets (container runtimes, systemd, polkit)", "host: a privileged host socket (facts.PrivilegedSockets)", StalePrecondition},
	{SourceStartupSecret, ReasonCredential, "H7", RoleMask, "rcSecrets", "the shell start-up files of the home directory that hold a secret (an exported token, a password on a command line), and the files they read into a secret variable", "host: {entry} holds a secret or is read into one (hazard/secrets)", StalePrecondition},
	{SourceAllowedSecret, ReasonCredential, "H7", RoleMask, "allowedSecrets", "in the allowed home entries: logs (HomeAllowedLeft), text files that hold a secret, and the files their configuration names as credential stores", "host: {entry} holds a secret, is named as a credential store, or is a log of an allowed entry (hazard/secrets)", StalePrecondition},
	{SourceUserSocket, ReasonHostSocket, "H8", RoleMask, "userSockets", "the Unix sockets the user owns that the sandbox would show (ssh ControlMaster, an agent or multiplexer outside /tmp and /run/user)", "host: a socket of the user's own, bound when compiling (" + UnixSocketsPath + ")", StalePrecondition},
	{SourceRunUser, ReasonAgentSockets, "S4", RoleMask, "Gather (RunUser)", "agent and bus sockets under /run/user/<uid>", "profile:run_user", StalePrecondition},
	{SourceDockerSocket, ReasonAgentSockets, "S4", RoleMask, "Gather (DockerSockets)", "the docker socket", "profile:docker_socket", StalePrecondition},
	{SourceProtectedEntry, ReasonProtected, "H9", RoleProtect, "protectedEntries", "entries of writable directories that run outside the sandbox later (git config and hooks, rc files)", "host: {entry} exists", StalePostCommand},
	{SourceProfileHomeEntry, ReasonProfileHome, "H9", RoleProtect, "protectedEntries", "the same entries in the profile home (home_mode: profile)", "host: {entry} exists", StalePostCommand},
	{SourceSandboxState, ReasonException, "S6", RoleException, "sandboxEnv", "this environment's own state directory (--sandbox-id)", "host: HERMES_HOME/sandboxes/bwrap-<id>", StalePrecondition},
	{SourceSandboxScratch, ReasonException, "S6", RoleException, "sandboxEnv", "this environment's own scratch directory (--sandbox-id)", "host: HERMES_HOME/cache/scratch/hermes-bwrap-<id>", StalePrecondition},
	{SourceStaged, ReasonException, "S6", RoleException, "stagedRoots", "Hermes' staged files, read-only", "host: HERMES_HOME/<staged root>", StalePrecondition},
	{SourceProfileHome, ReasonException, "S6", RoleException, "Gather (ProfileHome)", "the profile home (home_mode: profile)", "settings:home_mode", StalePrecondition},
	{SourceCABundle, ReasonCABundle, "S8", RoleException, "Gather (CABundles)", "a CA bundle a variable names, inside a hidden path", "host: ${var}", StalePrecondition},
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

// RuleOf returns the rule ID of the first row with reason r ("" when
// none has it).
func RuleOf(r Reason) string {
	for _, p := range Protections {
		if p.Reason == r {
			return p.Rule
		}
	}
	return ""
}
