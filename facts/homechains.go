package facts

// This file follows the symlink chains of the home paths the host reads
// or runs into the writable set (H10, H9): a denied entry (~/.kube ->
// proj/l -> real, masked at real), an allowed entry (~/.gitconfig ->
// proj/gitconfig -> cfg/gitconfig) or a start-up name (~/.bash_profile
// -> proj/d/bash_profile) whose chain passes through a link a command
// could re-point, or ends at a path a command could create. A bind can
// keep neither a link in place nor an absent path absent: the policy
// refuses the writable set.

import (
	"path"
	"strings"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// Why a home path's chain is followed (HomeChain.Why).
const (
	HomeChainDenied  = "denied"   // a denied (hidden) entry: masked at its target
	HomeChainAllowed = "allowed"  // an allowed entry of the home layout
	HomeChainStartup = "start-up" // one of ProtectedNames below the home
	HomeChainDotLink = "dot link" // any other dot entry of the home that is a symlink (homeDotLinks)
)

// HomeChain is a home path the host reads or runs whose symlink chain
// reaches into the writable set where a command could change what it
// leads to: through a link there (Missing false: Path is the link), or
// to an absent path there (Missing true: Path is where the chain ends).
type HomeChain struct {
	// Entry is the home path (~/.kube made absolute); Why one of the
	// HomeChain constants.
	Entry string `json:"entry"`
	Why   string `json:"why"`
	// Path is the link, or the absent path the chain ends at, or (Holds
	// true) the chain's end, a directory that is or holds Root.
	Path    string `json:"path"`
	Missing bool   `json:"missing"`
	// Holds is true when the chain ends at a directory that is the
	// writable directory Root or holds it (a dot link's: a start-up
	// name's is WritableProtected's): nothing below it can be kept
	// read-only without the writable directory.
	Holds bool `json:"holds"`
	// Chain is the chain from Entry: each link on it, then where it
	// ends (the message shows it).
	Chain []string `json:"chain"`
	// Root is the writable directory holding Path; BindIndex the bind
	// that makes it writable (-1: the working directory).
	Root      string `json:"root"`
	BindIndex int    `json:"bind_index"`
	// Allowed is true when protect.allow names the entry (a start-up
	// name): warned rather than refused.
	Allowed bool `json:"allowed"`
}

// homeChains follows the chain of every denied entry that is or passes
// through a symlink, every allowed entry of the home layout that is a
// symlink, every dot link of the home (homeDotLinks: any name), and
// every ProtectedNames path below the home, whatever the layout shows. A link counts wherever the sandbox may write it (the
// writable roots, less what the home layout leaves out and what lies
// inside a mask); for allowed
// and start-up paths not the links of the path as written before any is
// followed: the layout recreates an allowed link in its tmpfs, and H9
// warns about a start-up entry that is a symlink inside the writable
// set. An absent end counts only past a link (an absent entry itself is
// H9's, or creatableDenied's).
func (g *gatherer) homeChains(f *Facts, cwdWritable bool, allow map[string]bool) []HomeChain {
	roots := writableRoots(f, cwdWritable)
	if f.Home == "" || len(roots) == 0 {
		return nil
	}
	l := f.HomeLayout
	rootOf := func(p string) (writableRoot, bool) {
		for _, m := range f.Masks {
			if m.Path != p && Within(p, m.Path) {
				return writableRoot{}, false // inside a mask's tmpfs: the host never sees it
			}
		}
		var best writableRoot
		found := false
		for _, r := range roots {
			if Within(p, r.dir) && p != r.dir && l.writableAt(p, r.dir) && (!found || len(r.dir) > len(best.dir)) {
				best, found = r, true
			}
		}
		return best, found
	}
	type start struct {
		entry, why string
		allowed    bool
	}
	var starts []start
	seenEntry := map[string]bool{}
	add := func(s start) {
		if !seenEntry[s.entry] {
			seenEntry[s.entry] = true
			starts = append(starts, s)
		}
	}
	for _, h := range f.Hidden {
		if h.Symlink && h.MirrorOf == "" && path.IsAbs(h.Entry) {
			add(start{entry: h.Entry, why: HomeChainDenied})
		}
	}
	homeLinked := g.path(f.Home).HasLink
	for _, name := range ProtectedNames {
		// The common case costs one lookup a name: absent, or no link on
		// the way (below a home with no link on its own way).
		if homeLinked || linkBelow(g.fs.Lstat, f.Home, name) {
			add(start{entry: path.Join(f.Home, name), why: HomeChainStartup, allowed: allow[name]})
		}
	}
	allowedLink := map[string]bool{}
	if l.Active() {
		for _, e := range l.Entries {
			if e.Why != HomeWhyNonDot && e.Kind == invocation.KindSymlink {
				allowedLink[e.Path] = true
			}
		}
	}
	for _, p := range homeLinkStarts(f) {
		why := HomeChainDotLink
		if allowedLink[p] {
			why = HomeChainAllowed
		}
		add(start{entry: p, why: why})
	}
	var out []HomeChain
	for _, s := range starts {
		chain := []string{}
		found := func(p string, missing bool) {
			for _, c := range out {
				if c.Path == p && Within(s.entry, c.Entry) {
					return // ~/.kube/config through ~/.kube's link: said once
				}
			}
			if r, ok := rootOf(p); ok {
				out = append(out, HomeChain{Entry: s.entry, Why: s.why, Path: p, Missing: missing, Root: r.dir, BindIndex: r.index, Allowed: s.allowed})
			}
		}
		first := len(out)
		lstat := g.lstat
		if s.why == HomeChainStartup {
			// Unrecorded unless a link is on the way: a start-up name
			// that is a plain file or absent is H9's (a symlink made
			// later is the post-command scan's to see).
			if _, _, followed, _ := walkChain(g.fs.Lstat, s.entry, nil); !followed {
				continue
			}
		}
		end, missing, followed, err := walkChain(lstat, s.entry, func(link string, followed bool) {
			chain = append(chain, link)
			if followed || s.why == HomeChainDenied {
				found(link, false)
			}
		})
		if missing && followed && s.why != HomeChainDenied { // creatableDenied refuses a denied one
			found(end, true)
		}
		if err == nil && !missing && followed && (s.why == HomeChainDotLink || s.why == HomeChainAllowed) {
			out = append(out, holdsRoots(g.path(f.Home).Real, g.lstat(end).Kind, end, s.entry, s.why, boundBy(f, roots, s.entry))...)
		}
		if err == nil {
			chain = append(chain, end)
		}
		for i := first; i < len(out); i++ {
			out[i].Chain = chain
		}
	}
	return out
}

// boundBy returns roots less the read-write binds whose source is entry
// itself as the settings name it: making the link's target writable is
// then the settings' own choice (a bind of ~/.mnt -> /data/cache).
func boundBy(f *Facts, roots []writableRoot, entry string) []writableRoot {
	var out []writableRoot
	for _, r := range roots {
		if r.index >= 0 && r.index < len(f.Binds) && f.Binds[r.index].SrcAbs && f.Binds[r.index].Src == entry {
			continue
		}
		out = append(out, r)
	}
	return out
}

// holdsRoots returns a HomeChain for each writable root that the
// directory end, where the dot link entry's chain ends, is or holds:
// the host reads below end what a command writes there, and no bind
// can keep it read-only without the writable directory. An end that is
// the home directory or above it names nothing of its own (what the
// host reads through it, it reads through the home's own entries, which
// the layout and H9 judge).
func holdsRoots(home, kind, end, entry, why string, roots []writableRoot) []HomeChain {
	if kind != invocation.KindDir || Within(home, end) {
		return nil
	}
	var out []HomeChain
	for _, r := range roots {
		if Within(r.dir, end) {
			out = append(out, HomeChain{Entry: entry, Why: why, Path: end, Holds: true, Root: r.dir, BindIndex: r.index})
		}
	}
	return out
}

// linkBelow reports whether a symlink lies on the way from dir (with no
// link on its own way) to dir/name, looking at name's components in
// turn: it stops at the first that is absent or not a directory.
func linkBelow(lstat func(string) Stat, dir, name string) bool {
	p := dir
	for _, c := range strings.Split(name, "/") {
		p = path.Join(p, c)
		switch lstat(p).Kind {
		case invocation.KindSymlink:
			return true
		case invocation.KindDir:
		default:
			return false
		}
	}
	return false
}
