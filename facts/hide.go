package facts

import (
	"fmt"
	"path"
	"strings"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/settings"
)

// MaxHideVisits bounds the entries one compilation's hide globs may visit.
const MaxHideVisits = 20000

// HideError is a hide entry that could not be expanded.
type HideError struct {
	Index   int    `json:"index"`
	Message string `json:"message"`
}

// expandHide expands the user's hide entries (H4): "~/x" is relative to
// the home directory, an absolute path is itself, anything else is
// relative to the working directory. "**" matches any number of
// directories, "*", "?" and "[...]" match within one name, a trailing "/"
// matches directories only. Globs never descend into symlinked
// directories. Every directory walked is recorded with its modification
// time, so a new match after compiling makes the invocation stale.
func expandHide(g *gatherer, h *Host, s *settings.Settings, cwd string) ([]Hidden, []HideError) {
	var out []Hidden
	var errs []HideError
	seen := map[string]bool{}
	visits := 0
	for i, entry := range s.Hide {
		base, pattern := hideBase(entry, h.Home, cwd)
		dirOnly := strings.HasSuffix(pattern, "/")
		pattern = strings.Trim(pattern, "/")
		if pattern == "" {
			if Within(h.Home, base) {
				// The home, or above it, however spelt ("~/", "/home/u/",
				// "/"): a match like "/home/u" itself, which the rules
				// refuse as hiding HOME whole.
				if !seen[base] {
					seen[base] = true
					x := g.hidden(base, SourceHide)
					x.HideIndex = i
					out = append(out, x)
				}
				continue
			}
			errs = append(errs, HideError{i, fmt.Sprintf("hide entry %q names its whole base directory %s", entry, base)})
			continue
		}
		if _, err := path.Match(strings.ReplaceAll(pattern, "**", "*"), ""); err != nil {
			errs = append(errs, HideError{i, fmt.Sprintf("hide entry %q: %v", entry, err)})
			continue
		}
		w := &walker{g: g, visits: &visits, dirOnly: dirOnly}
		matches, err := w.match(base, strings.Split(pattern, "/"))
		if err != nil {
			errs = append(errs, HideError{i, fmt.Sprintf("hide entry %q: %v", entry, err)})
			continue
		}
		for _, m := range matches {
			if seen[m] {
				continue
			}
			seen[m] = true
			x := g.hidden(m, SourceHide)
			x.HideIndex = i
			out = append(out, x)
		}
	}
	return out, errs
}

func hideBase(entry, home, cwd string) (string, string) {
	switch {
	case entry == "~" && home != "/":
		// The home directory itself (as a bind's "~" is), not a file
		// named "~" in the working directory: policy rule H10 refuses it.
		return path.Dir(home), path.Base(home)
	case strings.HasPrefix(entry, "~/"):
		return home, entry[2:]
	case path.IsAbs(entry):
		// The longest prefix without glob characters is the base.
		parts := strings.Split(strings.TrimPrefix(entry, "/"), "/")
		i := 0
		for i < len(parts)-1 && !strings.ContainsAny(parts[i], "*?[") {
			i++
		}
		return "/" + path.Join(parts[:i]...), strings.Join(parts[i:], "/")
	}
	return cwd, entry
}

// walker matches one glob against the tree.
type walker struct {
	g       *gatherer
	visits  *int
	dirOnly bool
}

func (w *walker) visit() error {
	*w.visits++
	if *w.visits > MaxHideVisits {
		return fmt.Errorf("expansion visited more than %d entries: narrow the pattern", MaxHideVisits)
	}
	return nil
}

// match returns the paths under dir matching the pattern components.
func (w *walker) match(dir string, comps []string) ([]string, error) {
	if len(comps) == 0 {
		return nil, nil
	}
	st := w.g.lstat(dir)
	if st.Kind != invocation.KindDir {
		return nil, nil
	}
	comp, rest := comps[0], comps[1:]
	var names []string
	if isLiteral(comp) {
		// A literal name needs no listing: its own lstat (recorded as a
		// precondition, absent or not) is what the invocation depends on.
		if invocation.Missing(w.g.lstat(path.Join(dir, comp)).Kind) {
			return nil, nil
		}
		names = []string{comp}
	} else {
		// Record the directory with its mtime and what a new entry of it
		// must not match: the runtime re-lists it only when it changed.
		wd := w.g.walked[dir]
		if wd == nil {
			wd = &Walked{}
			w.g.walked[dir] = wd
		}
		if comp == "**" {
			wd.NewDirs = true
			if len(rest) > 0 {
				wd.addMatch(rest[0])
			}
		} else {
			wd.addMatch(comp)
		}
		var err error
		if names, err = w.g.fs.ReadDir(dir); err != nil {
			return nil, nil
		}
	}
	var out []string
	if comp == "**" {
		// "**" matches this directory too.
		sub, err := w.match(dir, rest)
		if err != nil {
			return nil, err
		}
		out = append(out, sub...)
		for _, n := range names {
			if err := w.visit(); err != nil {
				return nil, err
			}
			child := path.Join(dir, n)
			if w.g.lstat(child).Kind == invocation.KindDir {
				sub, err := w.match(child, comps)
				if err != nil {
					return nil, err
				}
				out = append(out, sub...)
			}
		}
		return out, nil
	}
	for _, n := range names {
		if err := w.visit(); err != nil {
			return nil, err
		}
		if ok, _ := path.Match(comp, n); !ok {
			continue
		}
		child := path.Join(dir, n)
		if len(rest) == 0 {
			if w.dirOnly {
				if k, _ := KindAt(w.g, child); k != invocation.KindDir {
					continue
				}
			}
			out = append(out, child)
			continue
		}
		if w.g.lstat(child).Kind == invocation.KindDir {
			sub, err := w.match(child, rest)
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
		}
	}
	return out, nil
}

// isLiteral reports whether a pattern component has no glob characters.
func isLiteral(comp string) bool { return !strings.ContainsAny(comp, "*?[\\") }

// Walked is what a hide glob needs of one directory it listed: the name
// patterns a new entry must not match, and whether a new subdirectory
// matters (a "**" glob would descend into it).
type Walked struct {
	Match   []string
	NewDirs bool
}

func (w *Walked) addMatch(p string) {
	for _, m := range w.Match {
		if m == p {
			return
		}
	}
	w.Match = append(w.Match, p)
}
