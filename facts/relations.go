package facts

import (
	"path"
	"sort"
)

// relate fills in the bind relations the rules judge (R1, R2, R10): which
// hidden paths a source lies under or contains, which protected paths a
// dest would cover, and which earlier bind has the same dest. The rules
// stay in Rego; this is geometry, computed here by looking paths up by
// their ancestors, so the cost grows with the number of paths and not
// with the product of binds and hidden paths.
func relate(f *Facts) {
	hidden := map[string]bool{}
	for _, m := range f.Masks {
		hidden[m.Path] = true
		if m.Hidden >= 0 { // the S4 masks count at their resolved path only
			for _, e := range m.Entries {
				hidden[e] = true
			}
		}
	}
	protected := map[string]bool{"/tmp": true, f.HermesHome: true}
	for h := range hidden {
		protected[h] = true
	}
	if f.Cwd.Exists {
		protected[f.Cwd.Real] = true
	}
	hiddenBelow := below(hidden)
	protectedBelow := below(protected)
	firstDest := map[string]int{}
	for i := range f.Binds {
		b := &f.Binds[i]
		b.SrcUnderHidden, b.SrcContainsHidden, b.DestCovers = []string{}, []string{}, []string{}
		b.DestDuplicateOf = -1
		if b.SrcAbs {
			b.SrcUnderHidden = sortedSet(above(hidden, path.Clean(b.Src)), above(hidden, b.SrcReal))
			for _, r := range hiddenBelow[b.SrcReal] {
				if r != b.SrcReal && r != path.Clean(b.Src) {
					b.SrcContainsHidden = append(b.SrcContainsHidden, r)
				}
			}
		}
		if b.DestAbs {
			dest := path.Clean(b.Dest)
			b.DestCovers = append(b.DestCovers, protectedBelow[dest]...)
			if j, ok := firstDest[b.DestReal]; ok {
				b.DestDuplicateOf = j
			} else {
				firstDest[b.DestReal] = b.Index
			}
		}
	}
}

// ancestorsOf returns p and every directory above it, "/" included.
func ancestorsOf(p string) []string {
	out := []string{p}
	for p != "/" && p != "." && p != "" {
		p = path.Dir(p)
		out = append(out, p)
	}
	return out
}

// above returns the members of set at or above p.
func above(set map[string]bool, p string) []string {
	if p == "" {
		return nil
	}
	var out []string
	for _, a := range ancestorsOf(p) {
		if set[a] {
			out = append(out, a)
		}
	}
	return out
}

// below maps every directory to the members of set at or under it,
// sorted.
func below(set map[string]bool) map[string][]string {
	out := map[string][]string{}
	for m := range set {
		for _, a := range ancestorsOf(m) {
			out[a] = append(out[a], m)
		}
	}
	for _, v := range out {
		sort.Strings(v)
	}
	return out
}

func sortedSet(lists ...[]string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, l := range lists {
		for _, s := range l {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	sort.Strings(out)
	return out
}
