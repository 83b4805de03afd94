package facts

// This file lays out the home directory (H10). In the allowlist layout
// HOME is a fresh tmpfs and each of its entries is bound back at its own
// path only when it is a non-dot entry or allowed; .config, .local and
// .local/share are rebuilt the same way one level down. What is not
// bound back is simply absent, whatever its name: a deny list always
// misses something.

import (
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/bwpolicy/bwpolicy/hazard/git"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/settings"
)

// Why an entry of the home layout is bound back.
const (
	HomeWhyNonDot   = "non-dot"    // a non-dot entry of HOME
	HomeWhyBuiltin  = "built-in"   // HomeAllowed
	HomeWhyPath     = "PATH"       // a directory on PATH under HOME
	HomeWhySettings = "home.allow" // the settings' home.allow
	HomeWhyCache    = "cache"      // an entry of ~/.cache in HomeCacheShown
	HomeWhyBind     = "binds"      // the source or destination of a settings bind
)

// maxHomeEntries bounds the entries of one layout directory looked at;
// a directory with more is not laid out (the compile refuses: H10).
const maxHomeEntries = 4096

// HomeLayout is the home directory's layout (H10).
type HomeLayout struct {
	// Mode is settings.HomeAllowlist or settings.HomeDenylist.
	Mode string `json:"mode"`
	// Home is the home directory, resolved ("" when not laid out).
	Home string `json:"home"`
	// Dirs are the directories rebuilt as a tmpfs, parents first: HOME,
	// and .config, .local and .local/share where they are directories.
	Dirs []string `json:"dirs"`
	// Entries are what is bound back (or recreated, for a symlink).
	Entries []HomeEntry `json:"entries"`
	// Mounts is how many of Entries are bind mounts (a symlink entry is
	// recreated, not mounted): bwrap's set-up time grows with its square.
	Mounts int `json:"mounts"`
	// Left are the entries of Dirs left out (absent in the sandbox).
	// Not in the policy input (the rules judge home_left of the cwd and
	// binds): a home of thousands of entries would only slow them.
	Left []string `json:"-"`
	// Allowed are the allowed paths under HOME and why (built-in, PATH,
	// home.allow), present or not (not in the policy input either).
	Allowed map[string]string `json:"-"`
	// Truncated are the layout directories with more than
	// maxHomeEntries entries: refused.
	Truncated []string `json:"truncated"`
	// Dangling are allowed symlink entries whose target is left out or
	// hidden: a warning each.
	Dangling []string `json:"dangling"`
	// Note says why the layout was not applied in allowlist mode
	// (HOME is / or not a directory); "" otherwise.
	Note string `json:"note"`
	// NotUnits are the home.allow entries that name no unit the layout
	// can show on its own (refused, H10): a rebuilt directory itself
	// (.config: all of it but the denied paths), a non-dot entry, or no
	// path inside HOME.
	NotUnits []NotUnit `json:"not_units"`
}

// NotUnit is a home.allow entry that is not a unit (HomeLayout.NotUnits).
type NotUnit struct {
	// Index is the entry's index in home.allow; Entry as written.
	Index int    `json:"index"`
	Entry string `json:"entry"`
	// Why says what it names instead of a unit; Units are units it may
	// name instead (the entries of a rebuilt directory, at most
	// maxUnitHints), empty when none applies.
	Why   string   `json:"why"`
	Units []string `json:"units"`
}

// maxUnitHints bounds the units a refusal suggests.
const maxUnitHints = 8

// HomeEntry is one entry bound back into the home layout.
type HomeEntry struct {
	Path string `json:"path"`
	// Kind is the entry's own kind (a symlink is recreated, never
	// followed); Target a symlink's target, as written.
	Kind   string `json:"kind"`
	Target string `json:"target,omitempty"`
	// Why is one of the HomeWhy constants.
	Why string `json:"why"`
	// Writable is true for a non-dot entry the writable set covers
	// (the working directory or a read-write bind at or above it).
	Writable bool `json:"writable"`
}

// Active reports whether the layout rebuilds the home directory.
func (l *HomeLayout) Active() bool { return l != nil && len(l.Dirs) > 0 }

// Hides reports whether host path p is out of sight because of the
// layout: it lies in HOME but in no entry bound back, and is not one of
// the rebuilt directories.
func (l *HomeLayout) Hides(p string) bool {
	if !l.Active() || !Within(p, l.Home) || slices.Contains(l.Dirs, p) {
		return false
	}
	for _, e := range l.Entries {
		if Within(p, e.Path) {
			return false
		}
	}
	return true
}

// bindsInside reports whether an entry bound back lies strictly inside p.
func (l *HomeLayout) bindsInside(p string) bool {
	if !l.Active() {
		return false
	}
	for _, e := range l.Entries {
		if e.Path != p && Within(e.Path, p) {
			return true
		}
	}
	return false
}

// LeftEntry returns the entry left out of the layout that p lies at or
// under ("" when none): a working directory or a bind there is refused.
func (l *HomeLayout) LeftEntry(p string) string {
	if !l.Hides(p) {
		return ""
	}
	for _, e := range l.Left {
		if Within(p, e) {
			return e
		}
	}
	return p
}

// homeAllowed returns the allowed paths, relative to home, and why.
func homeAllowed(h *Host, s *settings.Settings, home string) map[string]string {
	out := map[string]string{}
	for _, a := range HomeAllowed {
		out[a.Path] = HomeWhyBuiltin
	}
	for _, d := range strings.Split(h.Getenv("PATH"), ":") {
		if !path.IsAbs(d) {
			continue
		}
		d = path.Clean(d)
		for _, base := range []string{h.Home, home} {
			if rel, ok := strings.CutPrefix(d, base+"/"); ok && rel != "" {
				out[rel] = HomeWhyPath
				break
			}
		}
	}
	// A bind names its source and destination: they are shown in the
	// layout (a bind of ~/.sshfs, a sibling of ~/.ssh, as Hermes' backend
	// keeps it), never a denied path (deny wins below, and R1 drops a
	// bind of a hidden path).
	for _, b := range s.Binds {
		for _, p := range []string{b.Src, b.Target()} {
			if !path.IsAbs(p) {
				continue
			}
			p = path.Clean(p)
			for _, base := range []string{h.Home, home} {
				// A non-dot entry is bound back anyway.
				if rel, ok := strings.CutPrefix(p, base+"/"); ok && strings.HasPrefix(rel, ".") && out[rel] == "" {
					out[rel] = HomeWhyBind
					break
				}
			}
		}
	}
	if s.Home != nil {
		for _, a := range s.Home.Allow {
			a = path.Clean(strings.TrimPrefix(a, "~/"))
			if a != "." && !path.IsAbs(a) && !strings.HasPrefix(a, "..") {
				out[a] = HomeWhySettings
			}
		}
	}
	return out
}

// homeLayoutDirs are the directories of HOME rebuilt as a tmpfs.
var homeLayoutDirs = []string{"", ".config", ".local", ".local/share", ".cache"}

// homeLayout lays out the home directory for settings s. writable are
// the writable roots (the working directory when writable, the
// read-write binds at their own path); denied the candidate hidden
// paths found so far: an allowed path strictly inside one is not bound
// back (deny wins; the masks keep any later one hidden too).
func (g *gatherer) homeLayout(h *Host, s *settings.Settings, writable []writableRoot, denied []Hidden) *HomeLayout {
	l := &HomeLayout{Mode: s.HomeLayout()}
	if l.Mode != settings.HomeAllowlist {
		return l
	}
	hp := g.path(h.Home)
	switch {
	case hp.Real == "/":
		l.Note = "HOME is /: the home layout is not applied"
		return l
	case hp.Kind != invocation.KindDir:
		l.Note = "HOME is not a directory: the home layout is not applied"
		return l
	}
	l.Home = hp.Real
	l.Allowed = homeAllowed(h, s, l.Home)
	for rel, why := range l.Allowed {
		if why == HomeWhyBind && atOrInsideDenied(path.Join(l.Home, rel), denied) {
			delete(l.Allowed, rel) // a bind of a denied path is dropped (R1): nothing to show
		}
	}
	bound := map[string]bool{}
	replaced := boundLayoutDirs(s, l.Home)
	for _, rel := range homeLayoutDirs {
		dir := path.Join(l.Home, rel)
		if rel != "" {
			if g.lstat(dir).Kind != invocation.KindDir || !slices.Contains(l.Dirs, path.Dir(dir)) || replaced[rel] {
				continue // a symlink, missing or bound by the settings: an entry of its parent
			}
		}
		var de git.DirEntries
		if g.fs.ListDir(dir, &de) != nil {
			continue
		}
		if de.Len() > maxHomeEntries {
			l.Truncated = append(l.Truncated, dir)
			continue
		}
		l.Dirs = append(l.Dirs, dir)
		for _, i := range byName(&de) {
			name := de.Names[i]
			r := path.Join(rel, name)
			if slices.Contains(homeLayoutDirs, r) && !replaced[r] && g.lstat(path.Join(l.Home, r)).Kind == invocation.KindDir {
				continue // rebuilt itself, below
			}
			why := l.Allowed[r]
			switch {
			case why != "":
			case rel == "" && !strings.HasPrefix(name, "."):
				why = HomeWhyNonDot
			case rel == ".cache" && cacheShown(name) && l.Allowed[rel] != "":
				why = HomeWhyCache
			}
			if why == "" {
				l.Left = append(l.Left, path.Join(l.Home, r))
				continue
			}
			l.Entries = append(l.Entries, g.homeEntry(path.Join(l.Home, r), why, writable, de.IsDir[i]))
			bound[r] = true
		}
	}
	// An allowed path deeper than its layout directory (~/.foo/bin on
	// PATH, home.allow: [.cache/pip]) is bound at its own place when its
	// layout entry is left out; never through a symlink.
	for _, r := range slices.Sorted(maps.Keys(l.Allowed)) {
		p := path.Join(l.Home, r)
		if top := layoutEntryOf(r); top == r || !slices.Contains(l.Left, path.Join(l.Home, top)) || coveredByEntry(l, p) {
			continue
		}
		if insideDenied(p, denied) {
			continue // deny wins: ~/.ssh/x stays hidden with ~/.ssh (home.allow warns)
		}
		if pp := g.path(p); invocation.Missing(pp.Kind) || pp.HasLink || pp.Real != p {
			continue
		}
		l.Entries = append(l.Entries, g.homeEntry(p, l.Allowed[r], writable, false))
	}
	slices.SortFunc(l.Entries, func(a, b HomeEntry) int { return strings.Compare(a.Path, b.Path) })
	l.NotUnits = g.homeNotUnits(s, l.Home, denied)
	for _, e := range l.Entries {
		if e.Kind != invocation.KindSymlink {
			l.Mounts++
		}
		if e.Kind == invocation.KindSymlink && e.Why != HomeWhyNonDot {
			if real := g.path(e.Path).Real; l.Hides(real) {
				l.Dangling = append(l.Dangling, e.Path)
			}
		}
	}
	return l
}

// boundLayoutDirs returns the directories of homeLayoutDirs (relative to
// home) that a settings bind mounts at their own path (a bind of all of
// ~/.config, read-only or read-write): the bind replaces the layout's
// tmpfs there, as with Hermes' backend, so they are not rebuilt; they
// are entries of their parent instead, and the denied paths below them
// stay masked (a read-write one where a denied path is absent is refused:
// a command could create it, creatableDenied).
func boundLayoutDirs(s *settings.Settings, home string) map[string]bool {
	out := map[string]bool{}
	for _, b := range s.Binds {
		if !path.IsAbs(b.Src) || path.Clean(b.Src) != path.Clean(b.Target()) {
			continue
		}
		if rel, ok := strings.CutPrefix(path.Clean(b.Src), home+"/"); ok && rel != "" && slices.Contains(homeLayoutDirs, rel) {
			out[rel] = true
		}
	}
	return out
}

// homeNotUnits returns the home.allow entries that are not units: a unit
// is a dot entry of HOME (.zz-tool), an entry of a rebuilt dot directory
// (.config/zz-app, .local/bin, .cache/pip) or a path below one (bound at
// its own place). A rebuilt directory itself would show all of it but
// the denied paths, which is what the layout is there to prevent: the
// refusal names its entries as the units to name instead.
func (g *gatherer) homeNotUnits(s *settings.Settings, home string, denied []Hidden) []NotUnit {
	if s.Home == nil {
		return nil
	}
	var out []NotUnit
	for i, a := range s.Home.Allow {
		rel := path.Clean(strings.TrimPrefix(strings.TrimSpace(a), "~/"))
		n := NotUnit{Index: i, Entry: a, Units: []string{}}
		switch {
		case a == "" || rel == "." || path.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../"):
			n.Why = "not a path inside the home directory"
		case !strings.HasPrefix(rel, "."):
			n.Why = "a non-dot entry, which the layout shows anyway"
		case rel != ".cache" && slices.Contains(homeLayoutDirs, rel):
			n.Why = "a directory the layout rebuilds: all of it but the denied paths"
			names, _ := g.fs.ReadDir(path.Join(home, rel))
			for _, name := range names {
				if len(n.Units) == maxUnitHints {
					break
				}
				if r := path.Join(rel, name); !slices.Contains(homeLayoutDirs, r) && !atOrInsideDenied(path.Join(home, r), denied) {
					n.Units = append(n.Units, r)
				}
			}
		default:
			continue
		}
		out = append(out, n)
	}
	return out
}

// homeEntry describes entry p bound back for why. listedDir is true
// when p's directory listing shows it as a directory: its kind, all an
// entry's precondition holds of it, then needs no lstat (a symlink is
// never listed as a directory; anything mounted on a directory is one).
// The Stat recorded has no MTime, which only a directory a hide glob
// walked or HOME itself carries into its precondition: both are
// recorded before the layout (StepHide, the home's own path), and a
// path recorded is never recorded again.
func (g *gatherer) homeEntry(p, why string, writable []writableRoot, listedDir bool) HomeEntry {
	var st Stat
	if _, seen := g.observed[p]; !seen && listedDir {
		st = Stat{Kind: invocation.KindDir}
		g.observed[p] = st
	} else {
		st = g.lstat(p)
	}
	e := HomeEntry{Path: p, Kind: st.Kind, Target: st.Target, Why: why}
	if why == HomeWhyNonDot && st.Kind != invocation.KindSymlink {
		for _, w := range writable {
			if Within(p, w.dir) {
				e.Writable = true
			}
		}
	}
	return e
}

// layoutEntryOf returns the entry of a layout directory that the path
// rel (relative to HOME) lies at or under: ".foo" for ".foo/bin",
// ".config/foo" for ".config/foo/bar".
func layoutEntryOf(rel string) string {
	parts := strings.Split(rel, "/")
	for i := 1; i <= len(parts); i++ {
		if top := strings.Join(parts[:i], "/"); !slices.Contains(homeLayoutDirs, top) {
			return top
		}
	}
	return rel
}

// insideDenied reports whether p lies strictly inside a denied path
// (as named, or resolved).
func insideDenied(p string, denied []Hidden) bool {
	for _, d := range denied {
		for _, dp := range []string{d.Entry, d.Path} {
			if dp != p && Within(p, dp) {
				return true
			}
		}
	}
	return false
}

// atOrInsideDenied reports whether p is or lies inside a denied path
// (as named, or resolved).
func atOrInsideDenied(p string, denied []Hidden) bool {
	for _, d := range denied {
		if Within(p, d.Entry) || Within(p, d.Path) {
			return true
		}
	}
	return false
}

func coveredByEntry(l *HomeLayout, p string) bool {
	for _, e := range l.Entries {
		if Within(p, e.Path) {
			return true
		}
	}
	return false
}

// byName returns the indexes of de's entries in the order of their
// names (a listing's own order is the file system's).
func byName(de *git.DirEntries) []int {
	idx := make([]int, len(de.Names))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(i, j int) int { return strings.Compare(de.Names[i], de.Names[j]) })
	return idx
}
