package report

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/policy"
)

// RulesDoc is the page that documents every built-in rule ID, one
// section (anchor: the lower-case ID) each; docs/rules.md in the
// repository, generated from BuiltinRules.
const RulesDoc = "https://github.com/bwpolicy/bwpolicy/blob/main/docs/rules.md"

// BuiltinRules describes every rule ID bwpolicy itself reports: the
// safety rules R1–R13, the sandbox properties S1–S11 and extensions
// H1–H10, and the pipeline's own IDs (yaml, schema, input, cue, profile,
// policy, internal), in that order. An ID a built-in Rego rule reports
// is described by that rule's METADATA annotation
// (policy.BuiltinRuleDocs); the others — properties emit enforces, the
// pipeline's IDs — by goRules below. Each has a HelpURI into RulesDoc.
func BuiltinRules() []Rule {
	out := slices.Clone(catalogue())
	for i := range out {
		out[i].HelpURI = RulesDoc + "#" + strings.ToLower(out[i].ID)
	}
	return out
}

// catalogue merges the Rego rules' annotations with goRules, once. A
// built-in annotation that cannot be read is a bug of this build (the
// catalogue tests fail on it): it panics.
var catalogue = sync.OnceValue(func() []Rule {
	docs, err := policy.BuiltinRuleDocs()
	if err != nil {
		panic("report: built-in rule annotations: " + err.Error())
	}
	out := slices.Clone(goRules)
	for _, d := range docs {
		lv := e
		if d.Level == "warning" {
			lv = w
		}
		out = append(out, Rule{ID: d.ID, Name: d.Name, Short: d.Title, Help: d.Description, Level: lv, Security: d.Security})
	}
	slices.SortStableFunc(out, func(a, b Rule) int { return cmp.Compare(idOrder(a.ID), idOrder(b.ID)) })
	return out
})

// idOrder orders rule IDs R1–R13, S1–S11, H1–H9 by number, then the
// pipeline's IDs (in goRules' order: the sort is stable).
func idOrder(id string) int {
	for i, prefix := range []string{"R", "S", "H"} {
		if n, err := strconv.Atoi(strings.TrimPrefix(id, prefix)); err == nil && strings.HasPrefix(id, prefix) {
			return i*1000 + n
		}
	}
	return 3000
}

const (
	e = diag.Error
	w = diag.Warning
)

// goRules describes the IDs no built-in Rego rule reports.
var goRules = []Rule{
	{ID: "R11", Name: "HiddenPathsMaskedAfterBind", Level: e, Security: true,
		Short: "A bind that contains hidden paths at their own location keeps them masked (mounted after it).",
		Help:  "Mount order matters: a later mount covers an earlier one. bwpolicy emits the masks after the bind; this ID marks the arguments that do it."},
	{ID: "S2", Name: "Namespaces", Level: e, Security: true,
		Short: "Every namespace is unshared; only the network profile shares the host network.",
		Help:  "The sandbox dies with its parent and runs in a new session."},
	{ID: "S4", Name: "AgentSockets", Level: e, Security: true,
		Short: "Agent and bus sockets are unreachable.",
		Help:  "/run/user/<uid> is an empty tmpfs; SSH_AUTH_SOCK, GPG_AGENT_INFO and DBUS_SESSION_BUS_ADDRESS are removed; the docker socket is replaced by an empty file."},
	{ID: "S5", Name: "HiddenPaths", Level: e, Security: true,
		Short: "Credentials in the home directory and the Hermes home are hidden.",
		Help:  ".ssh .aws .gnupg .gpg .config/gcloud .azure .docker .kube .npmrc .pypirc .netrc .env and HERMES_HOME are absent under the allowlist home layout (H10) and show as empty wherever something would show them."},
	{ID: "S7", Name: "Pins", Level: e, Security: true,
		Short: "Parents of hidden paths inside writable directories are pinned.",
		Help:  "Each is bind-mounted onto itself so a command cannot rename it away from under the mask."},
	{ID: "S8", Name: "CABundles", Level: e, Security: true,
		Short: "A CA bundle named by the environment that lies inside a hidden path is bound back read-only.", Help: "So TLS keeps working inside the sandbox."},
	{ID: "S11", Name: "OneSandboxPerCommand", Level: w, Security: true,
		Short: "Each command gets its own sandbox; background processes die with it.", Help: "Start long-running services outside the agent."},

	{ID: "H5", Name: "EnvironmentPolicy", Level: w, Security: true,
		Short: "Environment variables whose names or values look secret are stripped unless allowed.", Help: "env.allow keeps a variable (name or value match); env.strip adds name patterns (any case)."},
	{ID: "H6", Name: "Verify", Level: e, Security: true,
		Short: "The compiled arguments are replayed into a mount table and the invariants proved.",
		Help:  "bwpolicy verify INVOCATION replays them with a model of bwrap of its own and names each invariant that fails. A violation means the invocation is not what bwpolicy compiles (a hand edit, or a bug of the compiler): do not run it; compile it again, and report it if the fresh one fails too."},

	{ID: "H8", Name: "PrivilegedHostSockets", Level: e, Security: true,
		Short: "Sockets that hand out power over the machine (system D-Bus, systemd, containerd, podman, CRI-O, libvirt, LXD, Incus, snapd) are replaced by empty files.",
		Help:  "A command that needs one of them does not belong in an agent's sandbox: run it outside."},

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
	{ID: "usage", Name: "Usage", Level: e,
		Short: "A command-line value is not valid (a --sandbox-id that is not a plain name).",
		Help:  "bwpolicy exits 2 without compiling anything. Fix the flag's value as the message says."},
	{ID: "internal", Name: "InternalError", Level: e,
		Short: "bwpolicy failed internally.", Help: "bwpolicy exits 2. Please report it with the input that caused it."},
}
