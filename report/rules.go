package report

import (
	"strings"

	"github.com/bwpolicy/bwpolicy/diag"
)

// RulesDoc is the page that documents every built-in rule ID, one
// section (anchor: the lower-case ID) each; docs/rules.md in the
// repository, generated from BuiltinRules.
const RulesDoc = "https://github.com/bwpolicy/bwpolicy/blob/main/docs/rules.md"

// BuiltinRules describes every rule ID bwpolicy itself reports: the
// safety rules R1–R13, the sandbox properties S1–S11 and extensions
// H1–H10, and the pipeline's own IDs (yaml, schema, input, cue, profile,
// policy, internal). Each has a HelpURI into RulesDoc.
func BuiltinRules() []Rule {
	out := make([]Rule, len(builtinRules))
	copy(out, builtinRules)
	for i := range out {
		out[i].HelpURI = RulesDoc + "#" + strings.ToLower(out[i].ID)
	}
	return out
}

const (
	e = diag.Error
	w = diag.Warning
)

var builtinRules = []Rule{
	{ID: "R1", Name: "BindUnderHiddenPath", Level: w, Security: true,
		Short: "A bind source at or under a hidden path is dropped.",
		Help:  "Binding ~/.ssh (or anything under a hidden path) back into the sandbox would undo the mask, so bwpolicy leaves the bind out. Remove the bind, or bind a directory that holds no secrets."},
	{ID: "R2", Name: "BindContainsHiddenPathElsewhere", Level: w, Security: true,
		Short: "A bind source that contains a hidden path, mounted at another place, is dropped.",
		Help:  "Hidden paths are masked only at their own location; mounting their parent somewhere else (dest ≠ src) would expose them there. Bind it at its own path (dest = src), or bind a narrower directory."},
	{ID: "R3", Name: "WritableBindInsideWritableDir", Level: e, Security: true,
		Short: "A read-write bind whose source lies inside a directory the sandbox can write is refused.",
		Help:  "bwrap resolves a bind's source for every command: a source the sandbox can rename or replace with a symlink lets it choose the next mount. Allowed only with dest = src, directly under that directory, with no symlink on the way."},
	{ID: "R4", Name: "BindDestMustExist", Level: e, Security: true,
		Short: "A bind destination must already exist on the host or lie under a tmpfs of the sandbox.",
		Help:  "bwrap would create a missing mount point on the host (an empty file or directory left behind under a writable bind) or fail at run time under the read-only root. Create the destination first, or use a destination under /tmp."},
	{ID: "R5", Name: "CwdIsRoot", Level: e, Security: true,
		Short: "A working directory of / is refused.",
		Help:  "The working directory is writable; / would make the whole host writable. Set cwd to the project directory."},
	{ID: "R6", Name: "CwdUnderHiddenPath", Level: e, Security: true,
		Short: "A working directory under the Hermes home or a hidden path is refused (or, when not set explicitly, moved to the home directory).",
		Help:  "Inside the sandbox that directory is masked, so no command could run there, and making it writable would expose what the mask protects. Set cwd elsewhere."},
	{ID: "R7", Name: "CwdIsHome", Level: w, Security: true,
		Short: "A writable working directory equal to (or above) the home directory.",
		Help:  "Every dotfile outside the hidden set (.bashrc, .profile, .local/bin) becomes writable: a path back into the user's own shells. Use a project directory as cwd."},
	{ID: "R8", Name: "ProfileHomeMustBePlainDir", Level: e, Security: true,
		Short: "With home_mode: profile, HERMES_HOME/home must be a plain directory or a link to a directory outside the hidden set.",
		Help:  "That directory becomes HOME and is writable; anything else could make a hidden path writable. Recreate it as a plain directory."},
	{ID: "R9", Name: "BindPathInvalid", Level: e, Security: true,
		Short: "A bind source that does not exist or is relative, or a destination that is not absolute.",
		Help:  "Bind paths are host paths, resolved when the sandbox starts: use absolute paths that exist."},
	{ID: "R10", Name: "BindDestForbidden", Level: e, Security: true,
		Short: "A bind destination that is a symlink on the host, or /, /proc, /dev or a parent of them, is refused.",
		Help:  "bwrap ≥ 0.12 refuses symlink destinations and older versions mount over the link's target; covering /, /proc or /dev would undo the sandbox's own filesystem. Pick another destination."},
	{ID: "R11", Name: "HiddenPathsMaskedAfterBind", Level: e, Security: true,
		Short: "A bind that contains hidden paths at their own location keeps them masked (mounted after it).",
		Help:  "Mount order matters: a later mount covers an earlier one. bwpolicy emits the masks after the bind; this ID marks the arguments that do it."},
	{ID: "R12", Name: "Limits", Level: e, Security: true,
		Short: "Resource limits: a negative value is an error; a value above the inherited hard limit is clamped, with a warning; tmp_mb 0 (unbounded tmpfs) is warned.",
		Help:  "memory_mb, cpu_seconds, max_procs and tmp_mb must be ≥ 0 (0 disables a limit; an unbounded /tmp or /dev/shm may fill half of RAM); a limit cannot be raised above what the process inherited."},
	{ID: "R13", Name: "Floor", Level: e, Security: true,
		Short: "The floor: no profile may drop a property every sandbox has (S1–S11).",
		Help:  "Custom profiles unify with the shared #Profile definition and are checked again by the floor rules: they cannot share the host network, unhide a hidden path, make / writable, or keep agent sockets. Remove the offending field from the profile."},

	{ID: "S1", Name: "LimitsBeforeBwrap", Level: w, Security: true,
		Short: "Resource limits are set before bwrap starts.",
		Help:  "RLIMIT_NPROC is set inside the sandbox's user namespace; kernels before 5.14 count it across the whole machine, and the kernel never applies it to root, so it is skipped in both cases with this warning."},
	{ID: "S2", Name: "Namespaces", Level: e, Security: true,
		Short: "Every namespace is unshared; only the network profile shares the host network.",
		Help:  "The sandbox dies with its parent and runs in a new session."},
	{ID: "S3", Name: "Filesystem", Level: e, Security: true,
		Short: "The host root is read-only; /dev, /proc and /tmp are the sandbox's own.", Help: "/tmp is fresh for every command."},
	{ID: "S4", Name: "AgentSockets", Level: e, Security: true,
		Short: "Agent and bus sockets are unreachable.",
		Help:  "/run/user/<uid> is an empty tmpfs; SSH_AUTH_SOCK, GPG_AGENT_INFO and DBUS_SESSION_BUS_ADDRESS are removed; the docker socket is replaced by an empty file."},
	{ID: "S5", Name: "HiddenPaths", Level: e, Security: true,
		Short: "Credentials in the home directory and the Hermes home are hidden.",
		Help:  ".ssh .aws .gnupg .gpg .config/gcloud .azure .docker .kube .npmrc .pypirc .netrc .env and HERMES_HOME show as empty."},
	{ID: "S6", Name: "HermesExceptions", Level: e, Security: true,
		Short: "The backend's state and scratch directories inside the Hermes home stay reachable.", Help: "With --sandbox-id ID: HERMES_HOME/sandboxes/bwrap-ID read-write, HERMES_HOME/cache/scratch/hermes-bwrap-ID the private TMPDIR, other environments' hidden, attachments and cache/documents read-only. Without: HERMES_HOME/sandboxes/bwrap-* read-only and HERMES_HOME/cache/scratch as TMPDIR."},
	{ID: "S7", Name: "Pins", Level: e, Security: true,
		Short: "Parents of hidden paths inside writable directories are pinned.",
		Help:  "Each is bind-mounted onto itself so a command cannot rename it away from under the mask."},
	{ID: "S8", Name: "CABundles", Level: e, Security: true,
		Short: "A CA bundle named by the environment that lies inside a hidden path is bound back read-only.", Help: "So TLS keeps working inside the sandbox."},
	{ID: "S9", Name: "WorkingDirectory", Level: w, Security: true,
		Short: "The working directory is the writable set; a missing one runs read-only in its nearest existing parent.",
		Help:  "Create the directory, or fix cwd."},
	{ID: "S10", Name: "NeverUnsandboxed", Level: e, Security: true,
		Short: "Without a working bwrap no command runs.", Help: "Install bubblewrap: apt install bubblewrap, dnf install bubblewrap or pacman -S bubblewrap."},
	{ID: "S11", Name: "OneSandboxPerCommand", Level: w, Security: true,
		Short: "Each command gets its own sandbox; background processes die with it.", Help: "Start long-running services outside the agent."},

	{ID: "H1", Name: "DisableUserns", Level: e, Security: true,
		Short: "Nested user namespaces are disabled where bwrap supports it.", Help: "--unshare-user --disable-userns."},
	{ID: "H2", Name: "Seccomp", Level: e, Security: true,
		Short: "A seccomp deny list blocks terminal injection, keyrings, ptrace, bpf, the mount API and namespace changes.",
		Help:  "seccomp.allow may relax named groups; an unknown group name is an error."},
	{ID: "H3", Name: "PortAllowlists", Level: e, Security: true,
		Short: "TCP port allowlists (Landlock) apply to the network profile only.", Help: "The other profiles have no network: remove network.tcp_connect / tcp_bind, or use profile: network."},
	{ID: "H4", Name: "UserHidePaths", Level: e, Security: true,
		Short: "User-declared hide entries (globs included).", Help: "Paths listed under hide: are masked like the built-in hidden paths."},
	{ID: "H5", Name: "EnvironmentPolicy", Level: w, Security: true,
		Short: "Environment variables whose names or values look secret are stripped unless allowed.", Help: "env.allow keeps a variable (name or value match); env.strip adds name patterns (any case)."},
	{ID: "H6", Name: "Verify", Level: e, Security: true,
		Short: "The compiled arguments are replayed into a mount table and the invariants proved.", Help: "See bwpolicy verify."},

	{ID: "H7", Name: "CredentialLocations", Level: w, Security: true,
		Short: "Credential stores beyond the seed's list (git, gh, pass, 1Password and Bitwarden agent sockets, …) and the paths credential variables name (SSH_AUTH_SOCK, GNUPGHOME, AWS_SHARED_CREDENTIALS_FILE, KUBECONFIG, …) are hidden.",
		Help:  "A path that is the working directory, the home directory or above one of them cannot be hidden: point the variable at the credential itself."},

	{ID: "H8", Name: "PrivilegedHostSockets", Level: e, Security: true,
		Short: "Sockets that hand out power over the machine (system D-Bus, systemd, containerd, podman, CRI-O, libvirt, LXD, Incus, snapd) are replaced by empty files.",
		Help:  "A command that needs one of them does not belong in an agent's sandbox: run it outside."},

	{ID: "H9", Name: "ProtectedEntries", Level: w, Security: true,
		Short: "Inside a writable directory, what runs later outside the sandbox stays read-only: .git/config and .git/hooks, shell start-up files, .envrc, .vscode/.idea, agent task files, autostart entries and user services, ~/.local/bin.",
		Help:  "Change them outside the sandbox. One reached through a symlink inside the writable directory cannot be protected: replace the link by the file or directory."},
	{ID: "H10", Name: "HomeLayout", Level: e, Security: true,
		Short: "The home directory's allowlist layout: only non-dot entries and allowed dot entries are visible.",
		Help:  "HOME is a fresh tmpfs with its non-dot entries bound back and only the allowed dot entries (a built-in list of shell rc files and toolchains, the PATH directories under HOME, home.allow) bound back read-only; denied paths inside them stay masked. A working directory or bind inside an entry the layout leaves out is refused: add it to home.allow, or set home.layout: denylist."},

	{ID: "config", Name: "ConfigSource", Level: w,
		Short: "Where a Hermes config's sandbox settings came from: plugins.entries.bwpolicy.settings, else plugins.entries.bubblewrap.settings, else the PR-era terminal.bubblewrap_* keys and TERMINAL_BUBBLEWRAP_* variables.",
		Help:  "A lower source used, or two set at once (the higher wins), is a warning naming the key to write instead; --format json carries the replacement text."},
	{ID: "yaml", Name: "YAMLSyntax", Level: e,
		Short: "The settings file is not valid YAML (or is empty, has several documents, or is beyond the bounds of a settings file).",
		Help:  "Fix the syntax at the position shown; write {} for a file that keeps every default. Settings files are small, and bwpolicy refuses before parsing or expanding anything: a file over 1 MiB, nesting deeper than 64 levels, more than 1,000 entries in one list or mapping, more than 50,000 values once YAML aliases are expanded (an alias bomb), or more than 20,000 YAML indicators and lines."},
	{ID: "schema", Name: "SettingsSchema", Level: e,
		Short: "The settings do not match settings.schema.json: an unknown key, a wrong type, a value out of range, a path no file system accepts.",
		Help:  "Unknown keys are errors so a misspelt protection is never silently ignored. Paths (cwd, binds, hide) must not contain a NUL byte and must fit Linux's bounds (under 4,096 bytes, components of at most 255); limits must be finite (.inf and .nan are refused). Editors can check as you type: see docs/ci.md (yaml-language-server)."},
	{ID: "input", Name: "Input", Level: e,
		Short: "An input file or directory could not be read, or is not a regular file.", Help: "Check the path and its permissions. A named pipe, a device or a socket is refused without reading it (it could block forever)."},
	{ID: "cue", Name: "ProfileCUE", Level: e,
		Short: "A custom profile is not valid CUE, sets an unknown field, or its name does not match its file name.", Help: "A profile may set name, description, cwd_writable, network, defaults and hidden_home."},
	{ID: "profile", Name: "ProfileSelection", Level: e,
		Short: "The settings name a profile that does not exist (or that was refused), or limits the profile rejects.", Help: "Use restricted, workspace, network or a custom profile loaded with --profiles."},
	{ID: "policy", Name: "PolicyLoad", Level: e,
		Short: "An organisation rule file (--policy) does not parse or compile.", Help: "bwpolicy exits 2: the rules of the run could not be trusted. Fix the .rego file at the position shown; bwpolicy test runs its unit tests."},
	{ID: "suppression", Name: "InlineSuppression", Level: e,
		Short: "A # bwpolicy:ignore comment names no rule ID, or an unknown one.",
		Help:  "Write # bwpolicy:ignore R7 the reason at the end of the line the finding is on, or alone on the line above it; several IDs are separated by commas. A silenced finding is not counted and shows in SARIF as a suppressed result with the reason as its justification."},
	{ID: "internal", Name: "InternalError", Level: e,
		Short: "bwpolicy failed internally.", Help: "bwpolicy exits 2. Please report it with the input that caused it."},
}
