package schema

import (
	"strconv"
	"strings"

	"github.com/bwpolicy/bwpolicy/diag"
)

// Prune returns a copy of values without the parts the diagnostics of
// Validate refuse, so that the later stages still see only valid input
// and report the rule errors of the valid parts. What goes: an unknown
// key, a value of the wrong type or out of range (the default applies
// instead); inside a list item, the offending key of the item; a list
// item that is itself invalid takes its whole list with it (dropping the
// item alone would shift the positions of the items after it). ok is
// false — nothing can be salvaged, and compilation should stop — when a
// diagnostic has no key path (the document as a whole), a path Prune
// cannot follow, or the copy still does not validate.
func Prune(values map[string]any, ds diag.List) (pruned map[string]any, ok bool) {
	pruned, _ = deepCopy(values).(map[string]any)
	for _, d := range ds {
		if d.Severity != diag.Error {
			continue
		}
		path, ok := parsePath(d.Path)
		if !ok || d.Rule != "schema" || !drop(pruned, path) {
			return nil, false
		}
	}
	// What is left must validate: an error the first pass did not
	// report (it reports non-finite numbers alone) is never dropped
	// silently.
	if Validate(pruned, noPositions{}).HasErrors() {
		return nil, false
	}
	return pruned, true
}

// drop removes what path names from m: the key, or — when the path ends
// at a list item — the whole list. What is no longer there (an earlier
// diagnostic dropped it or its list) counts as dropped; a path that
// cannot be followed is caught by Prune's revalidation.
func drop(m map[string]any, path []any) bool {
	// The last key before the first list index beyond which the path
	// ends at a list item: that list goes as a whole.
	if len(path) >= 2 {
		if _, isIndex := path[len(path)-1].(int); isIndex {
			return drop(m, path[:len(path)-1])
		}
	}
	var cur any = m
	for i, p := range path {
		last := i == len(path)-1
		switch c := cur.(type) {
		case map[string]any:
			k, ok := p.(string)
			if !ok {
				return false
			}
			if _, ok := c[k]; !ok {
				return true
			}
			if last {
				delete(c, k)
				return true
			}
			cur = c[k]
		case []any:
			n, ok := p.(int)
			if !ok || last {
				return false
			}
			if n < 0 || n >= len(c) {
				return true
			}
			cur = c[n]
		default:
			return true // a scalar: what was below it is not there
		}
	}
	return false
}

// parsePath parses a diagnostic's key path, "binds[1].src", into keys
// and indexes; false for "" and for what it cannot read.
func parsePath(s string) ([]any, bool) {
	if s == "" {
		return nil, false
	}
	var out []any
	for _, part := range strings.Split(s, ".") {
		key, rest, _ := strings.Cut(part, "[")
		if key == "" && len(out) == 0 {
			return nil, false
		}
		if key != "" {
			out = append(out, key)
		}
		for rest != "" {
			num, after, ok := strings.Cut(rest, "]")
			n, err := strconv.Atoi(num)
			if !ok || err != nil || n < 0 {
				return nil, false
			}
			out = append(out, n)
			if after == "" {
				break
			}
			if !strings.HasPrefix(after, "[") {
				return nil, false
			}
			rest = after[1:]
		}
	}
	return out, true
}

// deepCopy copies the maps and lists of a JSON-like value.
func deepCopy(v any) any {
	switch c := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(c))
		for k, x := range c {
			m[k] = deepCopy(x)
		}
		return m
	case []any:
		l := make([]any, len(c))
		for i, x := range c {
			l[i] = deepCopy(x)
		}
		return l
	}
	return v
}

// noPositions is a Located for a revalidation whose diagnostics are not
// shown.
type noPositions struct{}

func (noPositions) Pos([]any) diag.Pos    { return diag.Pos{} }
func (noPositions) KeyPos([]any) diag.Pos { return diag.Pos{} }
