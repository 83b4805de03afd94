// Package goldentest holds the golden files' format: each profile's base
// case in full (golden/profile_*.json, .explain.txt), every other case
// as a diff against its profile's base (golden/NAME.json.diff,
// NAME.explain.txt.diff), so that a change every invocation shares (a
// new protection's precondition) rewrites the bases and not every case.
// Diff writes a case's diff, Apply rebuilds the case from it, and Dir
// gives the tests that read invocations a directory of them in full.
// Standard library only: every package's tests may import it.
package goldentest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// context is the number of unchanged lines a hunk starts with: enough
// that a hunk's lines are found where they belong (Diff grows it when
// they are not).
const context = 2

// Diff returns the diff that turns base into target: hunks, each "@@"
// then its lines (" " kept, "-" removed, "+" added), with no line
// numbers, so that lines added to both base and target elsewhere change
// nothing in it. Apply(base, Diff(base, target)) == target.
func Diff(base, target string) string {
	a, b := splitLines(base), splitLines(target)
	ops := editScript(a, b)
	var out strings.Builder
	cursor := 0 // the base lines before it are consumed by earlier hunks
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		// A change block, merged with the next while they are close.
		j := i
		for {
			for j < len(ops) && ops[j].kind != ' ' {
				j++
			}
			k := j
			for k < len(ops) && ops[k].kind == ' ' {
				k++
			}
			if k < len(ops) && k-j <= 2*context {
				j = k
				continue
			}
			break
		}
		// Context before (never before cursor), grown until the hunk's
		// old lines are first found where they belong; after, context
		// lines (never into the next change).
		start := i
		for n := 0; n < context && start > 0 && ops[start-1].kind == ' ' && ops[start-1].a >= cursor; n++ {
			start--
		}
		end := j
		for n := 0; n < context && end < len(ops) && ops[end].kind == ' '; n++ {
			end++
		}
		for !firstAt(a, oldLines(ops[start:end]), cursor, posOf(ops, start, len(a))) {
			if start > 0 && ops[start-1].kind == ' ' && ops[start-1].a >= cursor {
				start--
				continue
			}
			break // at cursor: the first match from cursor is this one
		}
		out.WriteString("@@\n")
		for _, op := range ops[start:end] {
			out.WriteByte(op.kind)
			out.WriteString(op.line)
			out.WriteByte('\n')
		}
		cursor = posOf(ops, end, len(a))
		i = end
	}
	return out.String()
}

// Apply rebuilds the target of diff (Diff's output) from base.
func Apply(base, diff string) (string, error) {
	a := splitLines(base)
	var out []string
	cursor := 0
	hunks, err := parse(diff)
	if err != nil {
		return "", err
	}
	for n, h := range hunks {
		at := find(a, h.old, cursor)
		if at < 0 {
			return "", fmt.Errorf("hunk %d: its lines are not in the base after line %d (regenerate: go test ./compiler -run TestGolden -update)", n+1, cursor+1)
		}
		out = append(out, a[cursor:at]...)
		out = append(out, h.new...)
		cursor = at + len(h.old)
	}
	out = append(out, a[cursor:]...)
	return joinLines(out), nil
}

type hunk struct{ old, new []string }

func parse(diff string) ([]hunk, error) {
	var hs []hunk
	for i, l := range splitLines(diff) {
		switch {
		case l == "@@":
			hs = append(hs, hunk{})
		case len(hs) == 0 || l == "":
			return nil, fmt.Errorf("line %d: %q outside a hunk", i+1, l)
		case l[0] == ' ':
			hs[len(hs)-1].old = append(hs[len(hs)-1].old, l[1:])
			hs[len(hs)-1].new = append(hs[len(hs)-1].new, l[1:])
		case l[0] == '-':
			hs[len(hs)-1].old = append(hs[len(hs)-1].old, l[1:])
		case l[0] == '+':
			hs[len(hs)-1].new = append(hs[len(hs)-1].new, l[1:])
		default:
			return nil, fmt.Errorf("line %d: %q is not a diff line", i+1, l)
		}
	}
	if len(hs) == 0 && diff != "" {
		return nil, errors.New("no hunk")
	}
	return hs, nil
}

// find returns the first index at or after from where old starts in a
// (from itself for an empty old), -1 when none.
func find(a, old []string, from int) int {
	if len(old) == 0 {
		return from
	}
	for i := from; i+len(old) <= len(a); i++ {
		if slices.Equal(a[i:i+len(old)], old) {
			return i
		}
	}
	return -1
}

// firstAt reports whether old is first found in a, from cursor on, at at.
func firstAt(a, old []string, cursor, at int) bool { return find(a, old, cursor) == at }

// posOf is the base line where ops[i] starts (n, the base's length,
// past the last base line).
func posOf(ops []op, i, n int) int {
	for ; i < len(ops); i++ {
		if ops[i].kind != '+' {
			return ops[i].a
		}
	}
	return n
}

func oldLines(ops []op) []string {
	var out []string
	for _, o := range ops {
		if o.kind != '+' {
			out = append(out, o.line)
		}
	}
	return out
}

// op is one line of an edit script: kept (' '), removed ('-', a is its
// base line) or added ('+').
type op struct {
	kind byte
	line string
	a    int
}

// editScript is a shortest edit script from a to b (Myers' O(ND)
// algorithm), with removals before additions in each change.
func editScript(a, b []string) []op {
	n, m := len(a), len(b)
	max := n + m
	v := make([]int, 2*max+2)
	var trace [][]int
	for d := 0; d <= max; d++ {
		// v as step d-1 left it, k in [-(d-1), d-1]: all backtrack reads.
		if d == 0 {
			trace = append(trace, nil)
		} else {
			trace = append(trace, slices.Clone(v[max-(d-1):max+d]))
		}
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[max+k-1] < v[max+k+1] {
				x = v[max+k+1]
			} else {
				x = v[max+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[max+k] = x
			if x >= n && y >= m {
				return backtrack(trace, a, b, d)
			}
		}
	}
	return nil
}

func backtrack(trace [][]int, a, b []string, d int) []op {
	var rev []op
	x, y := len(a), len(b)
	for ; d > 0; d-- {
		saved := trace[d]
		at := func(k int) int { return saved[k+d-1] }
		k := x - y
		var pk int
		if k == -d || k != d && at(k-1) < at(k+1) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		for x > px && y > py {
			x, y = x-1, y-1
			rev = append(rev, op{' ', a[x], x})
		}
		if x == px {
			y--
			rev = append(rev, op{'+', b[y], -1})
		} else {
			x--
			rev = append(rev, op{'-', a[x], x})
		}
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		rev = append(rev, op{' ', a[x], x})
	}
	slices.Reverse(rev)
	return rev
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

func joinLines(l []string) string {
	if len(l) == 0 {
		return ""
	}
	return strings.Join(l, "\n") + "\n"
}
