package facts

import (
	"path"
	"sort"
	"strings"

	"github.com/bwpolicy/bwpolicy/profile"
	"github.com/bwpolicy/bwpolicy/runtime/hostprobe"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// Facts are the host facts resolved against one settings file and
// profile: what the policy rules judge and what the compiler mounts. Its
// JSON form is the "facts" field of the policy input.
type Facts struct {
	UID               int    `json:"uid"`
	Home              string `json:"home"`
	HermesHome        string `json:"hermes_home"`
	DefaultHermesHome string `json:"default_hermes_home"`

	Cwd Cwd `json:"cwd"`

	// Hidden lists every candidate hidden path, present or not.
	Hidden []Hidden `json:"hidden"`
	// HiddenPresent are the indexes in Hidden of the paths that are
	// there (neither absent nor denied): the few the rules compare,
	// listed once here rather than filtered out of the whole denied set
	// by every evaluation.
	HiddenPresent []int `json:"hidden_present"`
	// Binds describes each settings bind, by index.
	Binds []Bind `json:"binds"`

	// Scratch is HERMES_HOME/cache/scratch (S6).
	Scratch Path `json:"scratch"`
	// StateDirs are the existing HERMES_HOME/sandboxes/bwrap-* (S6).
	StateDirs []Path `json:"state_dirs"`
	// Sandbox is this environment's own state and scratch (compile
	// --sandbox-id); nil without an ID.
	Sandbox *SandboxEnv `json:"sandbox,omitempty"`
	// Staged are Hermes' staged-data roots (StagedRoots), read-only, or
	// with StagedSession (staged: session) each root's <sandbox ID>
	// subdirectory.
	Staged        []Path `json:"staged"`
	StagedSession bool   `json:"-"`
	// HomeMode is the effective home_mode; ProfileHome is
	// HERMES_HOME/home, described whatever the mode.
	HomeMode    string `json:"home_mode"`
	ProfileHome Path   `json:"profile_home"`

	CABundles     []CABundle `json:"ca_bundles"`
	RunUser       Path       `json:"run_user"`
	DockerSockets []Path     `json:"docker_sockets"`

	Bwrap       hostprobe.BwrapInfo `json:"bwrap"`
	Kernel      string              `json:"kernel"`
	NProcUserns bool                `json:"nproc_userns"`
	LandlockABI int                 `json:"landlock_abi"`
	Arch        string              `json:"arch"`
	// Cloud names the cloud this machine is a VM of ("" when none).
	Cloud string `json:"cloud"`
	// EnvNames are the names of the compiling environment's variables.
	EnvNames []string `json:"env_names"`
	// EnvValueKinds names, by variable, the kind of credential the
	// compiling environment's value looked like (secrets.SecretValue);
	// never the value.
	EnvValueKinds map[string]string `json:"-"`
	HardAS        uint64            `json:"hard_as"`
	HardCPU       uint64            `json:"hard_cpu"`
	HardNProc     uint64            `json:"hard_nproc"`

	// HomeLayout is the home directory's layout (H10).
	HomeLayout *HomeLayout `json:"home_layout"`
	// HomeDotLinks are the dot entries of the home directory that are
	// symlinks, and the symlinks among the entries of its dot
	// directories (homeDotLinks): their chains are held read-only or
	// refused (H10), whatever their names. HomeDotLinksTruncated are the
	// directories with too many entries to look through (refused).
	HomeDotLinks          []string `json:"-"`
	HomeDotLinksTruncated []string `json:"home_dot_links_truncated"`

	// Masks are the present hidden paths and the S4 masks, each once;
	// Exceptions what is bound back inside them (computeMasks,
	// computeExceptions). Every later stage reads these.
	Masks      []Mask      `json:"masks"`
	Exceptions []Exception `json:"exceptions"`

	// HomeChains are the home paths the host reads or runs (denied,
	// allowed and start-up entries) whose symlink chain passes through a
	// link in the writable set, or ends at an absent path there (H10,
	// refused).
	HomeChains []HomeChain `json:"home_chains"`

	// CreatableDenied are absent denied paths a command could create on
	// the host (refused by the policy), at most maxCreatable.
	CreatableDenied []CreatableDenied `json:"creatable_denied"`

	// HideErrors are the hide entries that could not be expanded.
	HideErrors []HideError `json:"hide_errors"`
	// MountNotes say what the search for second mounts of hidden paths
	// could not do (H7): a warning each.
	MountNotes []string `json:"-"`
	// settledHidden is 1 + len(Hidden) at the last settle (0: never).
	settledHidden int
	// SecretFiles are the files hidden for a credential they hold or
	// that a shown file names (shell start-up files, files of allowed
	// entries; file, lines and rules, never the value): a warning each,
	// listed by --explain.
	SecretFiles []SecretFile `json:"-"`
	// SecretNotes say what the check of shown files could not do (its
	// budget ran out): a warning each.
	SecretNotes []string `json:"-"`
	// CodeDirNotes warn of the directories of startup.CodeDirVars
	// (LD_LIBRARY_PATH, PYTHONPATH, …) that lie in the writable set (H9).
	CodeDirNotes []string `json:"-"`
	// Tracked are the hidden paths a git repository tracks (their
	// content stays readable from its objects): a warning each.
	Tracked []Tracked `json:"-"`
	// EnvSkips are the paths credential variables name that are not
	// hidden (H7), and why.
	EnvSkips []EnvSkip `json:"env_skips"`
	// Protected are the entries of ProtectedNames present in the
	// writable directories (H9).
	Protected []Protected `json:"protected"`
	// ProtectedLooked are all the candidate paths of H9, present or not
	// (each a precondition).
	ProtectedLooked []string `json:"-"`
	// ProtectedTruncated are the writable directories with more nested
	// repositories (or entries) than H9 looks through.
	ProtectedTruncated []string `json:"protected_truncated"`
	// WritableProtected are the writable directories that are one of
	// the home's protected entries or lie inside one (H9 refuses them
	// unless protect.allow names the entry).
	WritableProtected []WritableProtected `json:"writable_protected"`
	// GitNotes are the git configuration files in the writable set that
	// set a relative core.hooksPath for a git directory whose worktree
	// the compile cannot tell (H9): the directory it names is not bound
	// read-only; a warning each.
	GitNotes []string `json:"-"`
	// CredentialPaths are the paths each credential variable named when
	// compiling (secrets.CredentialPaths), by name: the invocation
	// records them for runtime.CheckCredentialEnv.
	CredentialPaths map[string][]string `json:"-"`
	// EnvChecked is the digest of every variable the registry's rows
	// read (EnvVars; invocation.EnvDigest), by name: the invocation
	// carries it and bwrun refuses another value.
	EnvChecked map[string]string `json:"-"`
	// DenyingDirs names, for each observed path lstat() was denied
	// (EACCES), the directory on its way that denies search.
	DenyingDirs map[string]string `json:"-"`

	// Observed is every path looked at, with what was there: the
	// invocation's preconditions are drawn from it. Walked marks the
	// directories a hide glob listed (their mtime is part of the state).
	Observed map[string]Stat    `json:"-"`
	Walked   map[string]*Walked `json:"-"`
}

// Path is one host path, as named and as resolved.
type Path struct {
	Path    string `json:"path"`
	Real    string `json:"real"`
	Kind    string `json:"kind"` // kind after resolving symlinks
	HasLink bool   `json:"has_link"`
}

// Cwd is the working directory decision (S9, R5–R7).
type Cwd struct {
	// Requested is the cwd as set (settings) or found (process).
	Requested string `json:"requested"`
	// Explicit is true when the settings set it.
	Explicit bool `json:"explicit"`
	// Path is the cleaned absolute cwd after the R6 fallback; Real is it
	// resolved.
	Path string `json:"path"`
	Real string `json:"real"`
	// Exists is false when the cwd is missing (S9), or cannot be entered
	// (Denied).
	Exists bool `json:"exists"`
	// Denied is true when the cwd cannot be entered by this user: a
	// directory on the way, or the cwd itself, denies search.
	Denied bool `json:"denied"`
	// RunDir is where commands start: Real, or its nearest existing
	// parent this user can enter when it is missing or denied.
	RunDir string `json:"run_dir"`
	// FellBack is "home" when R6 moved a process cwd to the home directory.
	FellBack string `json:"fell_back"`
	// HiddenBy is the hidden path the requested cwd lies under, if any.
	HiddenBy string `json:"hidden_by"`
	// HomeLeft is the entry the home layout leaves out that the cwd
	// lies at or under ("" when none; H10 refuses it).
	HomeLeft string `json:"home_left"`
	// InProfileHome is true when the cwd lies at or below the profile
	// home HERMES_HOME/home under home_mode: profile: the Hermes home's
	// mask does not hide it there (the profile home is bound back), and
	// its H9 entries are protected with the profile home's, after that
	// bind (ProfileHomeIndex).
	InProfileHome bool `json:"-"`
}

// Hidden is one candidate hidden path (S5, H4).
type Hidden struct {
	// Entry is the path as listed (~/.ssh made absolute).
	Entry string `json:"entry"`
	// Path is where it is masked: the entry resolved through symlinks.
	Path string `json:"path"`
	// Kind is the kind at Path: absent, dir, file, socket, other.
	Kind string `json:"kind"`
	// Symlink is true when the entry (or a parent) is a symlink.
	Symlink bool `json:"symlink"`
	// Why is the reason it is hidden and Source the registry row that
	// found it (Protections, role mask).
	Why    Reason `json:"why"`
	Source Source `json:"source"`
	// Setting is what a finding about it points at (its row's).
	Setting Setting `json:"setting"`
	// Var is the credential variable that named the path (H7 only).
	Var string `json:"var,omitempty"`
	// HideIndex is the index of the hide entry that matched (H4 only).
	HideIndex int `json:"hide_index"`
	// MirrorOf is, for a second location of a hidden path that another
	// mount of the same filesystem shows (H7, /proc/self/mountinfo),
	// that hidden path; "" otherwise.
	MirrorOf string `json:"-"`
}

// Bind describes one bind of the settings.
type Bind struct {
	Index    int    `json:"index"`
	Src      string `json:"src"`
	Dest     string `json:"dest"`
	Readonly bool   `json:"readonly"`
	SrcAbs   bool   `json:"src_abs"`
	DestAbs  bool   `json:"dest_abs"`
	// SrcReal and SrcKind describe the source after resolving symlinks;
	// SrcHasLink reports a symlink anywhere on the way.
	SrcReal    string `json:"src_real"`
	SrcKind    string `json:"src_kind"`
	SrcHasLink bool   `json:"src_has_link"`
	// DestKind is lstat of the destination (symlink not followed);
	// DestReal resolves it; DestHasLink reports a symlink on the way.
	DestKind    string `json:"dest_kind"`
	DestReal    string `json:"dest_real"`
	DestHasLink bool   `json:"dest_has_link"`

	// Relations to the other paths (see relate): the hidden paths (S4
	// and S5 masks included) the source is at or under, those strictly
	// inside it, the protected paths (hidden paths, the Hermes home, the
	// cwd, /tmp) at or under the dest, and the index of an earlier bind
	// with the same resolved dest (-1: none).
	SrcUnderHidden    []string `json:"src_under_hidden"`
	SrcContainsHidden []string `json:"src_contains_hidden"`
	DestCovers        []string `json:"dest_covers"`
	DestDuplicateOf   int      `json:"dest_duplicate_of"`
	// SrcHomeLeft and DestHomeLeft are the entries the home layout
	// leaves out that the source or the destination lies at or under
	// ("" when none; H10 refuses them).
	SrcHomeLeft  string `json:"src_home_left"`
	DestHomeLeft string `json:"dest_home_left"`
	// DestResolved is true when the settings gave no destination and the
	// source is reached through a symlink: Dest is the source's real
	// path, resolved at compile (the link is a precondition).
	DestResolved bool `json:"-"`
}

// CABundle is a CA bundle named by one of CAVars (S8).
type CABundle struct {
	Var string `json:"var"`
	Path
}

// hiddenPresent returns the indexes in hs of the paths that are there.
func hiddenPresent(hs []Hidden) []int {
	out := []int{}
	for i, h := range hs {
		if !invocation.Missing(h.Kind) {
			out = append(out, i)
		}
	}
	return out
}

// boundProfileHome returns the profile home when home_mode is profile
// and it is a directory (S6 binds it back inside the Hermes home's
// mask; R8 refuses one that links into a mask), else nil.
func (f *Facts) boundProfileHome() *Path {
	if f.HomeMode != "profile" || f.ProfileHome.Kind != invocation.KindDir {
		return nil
	}
	return &f.ProfileHome
}

// settle recomputes the masks and the exceptions from the hidden paths
// found so far; when none was added since the last settle (Hidden only
// grows, and nothing else they read changes meanwhile) they stand.
func (f *Facts) settle(cwdWritable bool) {
	if f.settledHidden == len(f.Hidden)+1 {
		return
	}
	f.Masks = computeMasks(f)
	f.Exceptions = computeExceptions(f, f.Masks, cwdWritable)
	f.settledHidden = len(f.Hidden) + 1
}

// writableRoot is a directory the sandbox may write on the host, and the
// bind that makes it writable (-1: the working directory).
type writableRoot struct {
	dir   string
	index int
}

// writableRoots are the directories the sandbox may write: the working
// directory when the profile makes it writable, the read-write binds
// mounted at their own path. The home layout, the symlink-chain
// protection and the creatable-denied check all judge against these.
func writableRoots(f *Facts, cwdWritable bool) []writableRoot {
	var out []writableRoot
	if cwdWritable && f.Cwd.Exists {
		out = append(out, writableRoot{f.Cwd.Real, -1})
	}
	for _, b := range f.Binds {
		if !b.Readonly && b.SrcAbs && b.DestAbs && b.SrcReal == b.DestReal {
			out = append(out, writableRoot{b.DestReal, b.Index})
		}
	}
	return out
}

type gatherer struct {
	fs       FS
	observed map[string]Stat
	walked   map[string]*Walked
	// step is the gather step running (gatherSteps): a hidden path it
	// finds must be of a row that names it (hidden).
	step Step
	// host is the host read; its variables are read through getenv.
	host *Host
}

// lstat records what it sees; a path already looked at is not looked at
// again (the parents of the home entries, the working directory and
// the candidate paths are shared), so one gathering sees one state.
func (g *gatherer) lstat(p string) Stat {
	if st, ok := g.observed[p]; ok {
		return st
	}
	st := g.fs.Lstat(p)
	g.observed[p] = st
	return st
}

// path describes p, recording each symlink on the way.
func (g *gatherer) path(p string) Path {
	real, hasLink, err := Resolve(g, p)
	if err != nil {
		return Path{Path: p, Real: p, Kind: invocation.KindOther, HasLink: true}
	}
	return Path{Path: p, Real: real, Kind: g.lstat(real).Kind, HasLink: hasLink}
}

// Lstat and ReadDir make a gatherer an FS that records.
func (g *gatherer) Lstat(p string) Stat                { return g.lstat(p) }
func (g *gatherer) ReadDir(p string) ([]string, error) { return g.fs.ReadDir(p) }
func (g *gatherer) ReadFile(p string, max int) ([]byte, error) {
	return g.fs.ReadFile(p, max)
}

func (g *gatherer) hiddenPaths(h *Host, p *profile.Profile) []Hidden {
	names := p.HiddenNames()
	var out []Hidden // nil when there is none, as the facts' JSON says ("hidden": null)
	if len(names) > 0 {
		out = make([]Hidden, 0, len(names)+2) // a Hidden is large: grown by appends, it would be copied over and over
	}
	for _, name := range names {
		src := SourceHomeEntry
		if credentialStore(name) {
			src = SourceCredentialStore
		}
		out = append(out, g.hidden(path.Join(h.Home, name), src))
	}
	if p.HideHermesHome {
		out = append(out, g.hidden(h.HermesHome, SourceHermesHome))
		if def := path.Join(h.Home, ".hermes"); def != h.HermesHome {
			out = append(out, g.hidden(def, SourceHermesHome))
		}
	}
	return out
}

// hidden describes the candidate hidden path entry found by the
// registry row of src.
func (g *gatherer) hidden(entry string, src Source) Hidden {
	// Record each component between the home and the entry, so a parent
	// turned into a symlink later makes the invocation stale.
	g.lstat(entry)
	pp := g.path(entry)
	row := ProtectionOf(src)
	g.mustGather(row)
	return Hidden{Entry: entry, Path: pp.Real, Kind: pp.Kind, Symlink: pp.HasLink, Why: row.Reason, Source: src, Setting: row.Setting}
}

func (g *gatherer) stateDirs(hermesHome string) []Path {
	dir := path.Join(hermesHome, "sandboxes")
	names, err := g.fs.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []Path
	for _, n := range names {
		if !strings.HasPrefix(n, "bwrap-") {
			continue
		}
		p := g.path(path.Join(dir, n))
		if p.Kind == invocation.KindDir && !p.HasLink {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Within reports whether p is base or lies under it.
func Within(p, base string) bool { return invocation.Within(p, base) }

// nprocPerUserns reports whether a kernel release counts RLIMIT_NPROC per
// user namespace (5.14 and later).
func nprocPerUserns(release string) bool {
	ma, mi, err := hostprobe.ParseKernelVersion(release)
	wantMa, wantMi, _ := hostprobe.ParseKernelVersion(hostprobe.NProcPerUserNSSince)
	return err == nil && (ma > wantMa || ma == wantMa && mi >= wantMi)
}
