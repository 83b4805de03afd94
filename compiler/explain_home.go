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
	var watched []string
	for _, h := range f.Hidden {
		if h.Kind == invocation.KindAbsent && h.Source != facts.SourceHide && facts.Within(h.Entry, f.Home) {
			watched = append(watched, strings.TrimPrefix(h.Entry, f.Home+"/"))
		}
	}
	sort.Strings(watched)
	fmt.Fprintf(w, "  denied paths watched although absent (one appearing makes the invocation stale): %d (%s)\n", len(watched), clipList(watched, 8))
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

// clipList joins names, at most n of them, saying how many more.
func clipList(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:n], ", ") + fmt.Sprintf(" and %d more", len(names)-n)
}
