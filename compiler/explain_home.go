package compiler

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// writeHomeLayout explains the home layout (H10): what is bound back and
// why, what is left out, and the denied paths that are watched although
// absent (one appearing makes the invocation stale).
func writeHomeLayout(w io.Writer, f *facts.Facts) {
	l := f.HomeLayout
	fmt.Fprintln(w)
	if !l.Active() {
		fmt.Fprintf(w, "home layout (H10): %s — the home directory as it is, the denied paths masked", l.Mode)
		if l.Note != "" {
			fmt.Fprintf(w, " (%s)", l.Note)
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprintf(w, "home layout (H10): allowlist — %s rebuilt as a tmpfs; new names there land in the tmpfs\n", strings.Join(l.Dirs, ", "))
		byWhy := map[string][]string{}
		for _, e := range l.Entries {
			byWhy[e.Why] = append(byWhy[e.Why], strings.TrimPrefix(e.Path, l.Home+"/"))
		}
		for _, why := range []string{facts.HomeWhyNonDot, facts.HomeWhyBuiltin, facts.HomeWhyPath, facts.HomeWhySettings, facts.HomeWhyBind} {
			if names := byWhy[why]; len(names) > 0 {
				fmt.Fprintf(w, "  bound back (%s): %s\n", why, clipList(names, 20))
			}
		}
		var left []string
		for _, p := range l.Left {
			left = append(left, strings.TrimPrefix(p, l.Home+"/"))
		}
		fmt.Fprintf(w, "  left out (absent): %s\n", orNone(clipList(left, 20), "nothing"))
	}
	writeWatched(w, f)
	var unreachable []string
	for _, h := range f.Hidden {
		if h.Kind == invocation.KindDenied {
			if h.Var != "" {
				unreachable = append(unreachable, fmt.Sprintf("%s ($%s)", h.Path, h.Var))
			} else {
				unreachable = append(unreachable, h.Path)
			}
		}
	}
	if len(unreachable) > 0 {
		fmt.Fprintf(w, "  out of your reach, so not masked (a directory on the way, another user's, denies you search; one becoming reachable makes the invocation stale): %s\n", clipList(unreachable, 8))
	}
}

// writeWatched lists the denied paths of the home that are watched
// although absent (one appearing makes the invocation stale), one line
// per registry row that found them, in the registry's order: a row
// added to the registry adds its own line, and a case that changes one
// row's paths changes that row's line only.
func writeWatched(w io.Writer, f *facts.Facts) {
	watched := map[facts.Source][]string{}
	for _, h := range f.Hidden {
		if h.Kind == invocation.KindAbsent && h.Source != facts.SourceHide && facts.Within(h.Entry, f.Home) {
			watched[h.Source] = append(watched[h.Source], strings.TrimPrefix(h.Entry, f.Home+"/"))
		}
	}
	if len(watched) == 0 {
		fmt.Fprintln(w, "  denied paths watched although absent: none")
		return
	}
	fmt.Fprintln(w, "  denied paths watched although absent (one appearing makes the invocation stale), by the protection that denies them:")
	for _, row := range facts.Protections {
		names := watched[row.Source]
		if len(names) == 0 {
			continue
		}
		sort.Strings(names)
		fmt.Fprintf(w, "    %s (rule %s): %d (%s)\n", row.Source, row.Rule, len(names), clipList(names, 8))
	}
}

// clipList joins names, at most n of them, saying how many more.
func clipList(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:n], ", ") + fmt.Sprintf(" and %d more", len(names)-n)
}
