package facts

// This file computes, once, the two sets every later stage reads: the
// masks (what the sandbox hides) and the exceptions (what is bound back
// inside a mask). The policy's bind rules and S6, the compiler's mounts
// and pins and the facts' own credential search all use these lists, so
// one condition decides each.

import (
	"slices"
	"strings"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// Mask is one host path the sandbox hides (a registry row of role mask
// found it, and it exists).
type Mask struct {
	// Path is where it is masked (symlinks resolved); Entry is how it
	// was first named, Entries every name that led to it.
	Path    string   `json:"path"`
	Entry   string   `json:"entry"`
	Entries []string `json:"entries"`
	// Kind is the kind at Path: dir (an empty tmpfs), else an empty
	// read-only file.
	Kind   string `json:"kind"`
	Why    Reason `json:"why"`
	Source Source `json:"source"`
	// CoveredBy is the masked directory Path lies inside ("" when it is
	// masked on its own): the compiler mounts only the uncovered ones.
	CoveredBy string `json:"covered_by"`
	// Hidden is the index in Facts.Hidden of the candidate it stands for
	// (-1 for the S4 masks, which are not in Hidden).
	Hidden int `json:"-"`
}

// Exception is one host path bound back, at its own place, inside a
// mask (S6, S8). The compiler binds exactly these; policy rule S6
// refuses a hidden path inside one (the bind would expose it).
type Exception struct {
	// Path is the resolved path bound back.
	Path   string `json:"path"`
	Source Source `json:"source"`
	// Writable is true when it is bound read-write.
	Writable bool `json:"writable"`
	// Var is the variable that named a CA bundle; Staged the index in
	// StagedRoots of a staged root.
	Var    string `json:"var,omitempty"`
	Staged int    `json:"-"`
}

// computeMasks returns the masks of f: each present candidate hidden
// path once (by resolved path, the first candidate naming it), the
// agent-socket directory /run/user/<uid> when it is a directory and the
// present docker sockets; sorted by path.
func computeMasks(f *Facts) []Mask {
	var out []Mask
	at := map[string]int{}
	add := func(m Mask) {
		if i, seen := at[m.Path]; seen {
			if !slices.Contains(out[i].Entries, m.Entry) {
				out[i].Entries = append(out[i].Entries, m.Entry)
			}
			return
		}
		at[m.Path] = len(out)
		m.Entries = []string{m.Entry}
		out = append(out, m)
	}
	for i, h := range f.Hidden {
		if !invocation.Missing(h.Kind) {
			add(Mask{Path: h.Path, Entry: h.Entry, Kind: h.Kind, Why: h.Why, Source: h.Source, Hidden: i})
		}
	}
	if ru := f.RunUser; ru.Kind == invocation.KindDir {
		add(Mask{Path: ru.Real, Entry: ru.Path, Kind: ru.Kind, Why: ReasonAgentSockets, Source: SourceRunUser, Hidden: -1})
	}
	for _, d := range f.DockerSockets {
		if !invocation.Missing(d.Kind) {
			add(Mask{Path: d.Real, Entry: d.Path, Kind: d.Kind, Why: ReasonAgentSockets, Source: SourceDockerSocket, Hidden: -1})
		}
	}
	slices.SortStableFunc(out, func(a, b Mask) int { return strings.Compare(a.Path, b.Path) })
	for i := range out {
		// Left out by the home layout, and nothing bound back inside it
		// (an allowed path below a denied one, ~/.ssh/x from home.allow
		// or a PATH directory ~/.aws/bin, keeps the mask: deny wins).
		if f.HomeLayout.Hides(out[i].Path) && !f.HomeLayout.bindsInside(out[i].Path) {
			out[i].CoveredBy = HomeLayoutCover
		}
	}
	// Sorted by path, a directory comes before what lies inside it.
	var dirs []string
	for i := range out {
		for _, d := range dirs {
			if out[i].CoveredBy == "" && d != out[i].Path && Within(out[i].Path, d) {
				out[i].CoveredBy = d
				break
			}
		}
		if out[i].Kind == invocation.KindDir && out[i].CoveredBy == "" {
			dirs = append(dirs, out[i].Path)
		}
	}
	return out
}

// HomeLayoutCover is Mask.CoveredBy for a path the home layout leaves
// out: nothing is mounted there, so it needs no mask of its own.
const HomeLayoutCover = "(home layout)"

// maskedDir reports whether p lies strictly inside a masked directory.
func maskedDir(masks []Mask, p string) bool {
	for _, m := range masks {
		if m.Kind == invocation.KindDir && m.Path != p && Within(p, m.Path) {
			return true
		}
	}
	return false
}

// InsideMaskedDir reports whether p lies strictly inside a masked
// directory (one of f.Masks, mounted or covered).
func (f *Facts) InsideMaskedDir(p string) bool { return maskedDir(f.Masks, p) }

// masked reports whether p is or lies inside any mask.
func masked(masks []Mask, p string) bool {
	for _, m := range masks {
		if Within(p, m.Path) {
			return true
		}
	}
	return false
}

// computeExceptions returns what is bound back inside the masks, by one
// condition per source: the directory exists (where the row names a
// directory) and lies inside a masked directory — except the profile
// home, bound whenever home_mode is profile and it is a directory (it
// is HOME), and a CA bundle, bound when it exists and is hidden by any
// mask (R8 refuses a profile home that links into one). cwdWritable says whether the working directory is writable (the
// shared scratch and the profile home follow it).
func computeExceptions(f *Facts, masks []Mask, cwdWritable bool) []Exception {
	var out []Exception
	dir := func(p Path) bool { return p.Kind == invocation.KindDir && maskedDir(masks, p.Real) }
	if sb := f.Sandbox; sb != nil {
		// HERMES_HOME itself may be a link; the components below it may
		// not lead anywhere else (another environment's directory).
		if dir(sb.State) && strings.HasSuffix(sb.State.Real, "/sandboxes/bwrap-"+sb.ID) {
			out = append(out, Exception{Path: sb.State.Real, Source: SourceSandboxState, Writable: true})
		}
		// The scratch follows the working directory: read-only under a
		// profile that keeps it read-only (restricted), where nothing a
		// command writes may reach the host's disk.
		if dir(sb.Scratch) && strings.HasSuffix(sb.Scratch.Real, "/cache/scratch/hermes-bwrap-"+sb.ID) {
			out = append(out, Exception{Path: sb.Scratch.Real, Source: SourceSandboxScratch, Writable: cwdWritable})
		}
		for i, r := range f.Staged {
			if dir(r) && !r.HasLink {
				out = append(out, Exception{Path: r.Real, Source: SourceStaged, Staged: i})
			}
		}
	}
	// Without a sandbox ID nothing of the Hermes home's scratch or state
	// is this invocation's own: the shared HERMES_HOME/cache/scratch
	// (other environments' files, a socket another process left there)
	// and the sandboxes/bwrap-* directories (their shell snapshots) stay
	// inside the mask, and TMPDIR is the sandbox's private /tmp.
	// A profile home that is a link into a mask is refused (R8), never
	// bound.
	if ph := f.ProfileHome; f.HomeMode == "profile" && ph.Kind == invocation.KindDir && !(ph.HasLink && masked(masks, ph.Real)) {
		out = append(out, Exception{Path: f.ProfileHome.Real, Source: SourceProfileHome, Writable: cwdWritable})
	}
	seen := map[string]bool{}
	for _, ca := range f.CABundles {
		if invocation.Missing(ca.Kind) || seen[ca.Real] || !masked(masks, ca.Real) {
			continue
		}
		seen[ca.Real] = true
		out = append(out, Exception{Path: ca.Real, Source: SourceCABundle, Var: ca.Var})
	}
	return out
}

// inException tells whether p lies in a path bound back inside the
// masks. A credential there is reachable although its parent is hidden
// (it is masked, and policy rule S6 refuses the mask an exception would
// cover).
func inException(p string, f *Facts) bool {
	for _, e := range f.Exceptions {
		if Within(p, e.Path) {
			return true
		}
	}
	return false
}
