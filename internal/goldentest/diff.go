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
// they are not). A hunk ends with its last change, no unchanged line
// after it: a line added to the base just after a case's change (a new
// protection's row below the one the case changes) leaves the case's
// diff as it was.
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
			if k < len(ops) && k-j <= context {
				j = k
				continue
			}
			break
		}
		// Context before (never before cursor), grown until the hunk's
		// old lines are first found where they belong; none after.
		start := i
		for n := 0; n < context && start > 0 && ops[start-1].kind == ' ' && ops[start-1].a >= cursor; n++ {
			start--
		}
		end := j
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

// editScript is an edit script from a to b, patience diff's: the lines
// that occur once in a and once in b, in the same order in both (the
// longest such run), are kept and split the texts; each stretch between
// them is diffed the same way, and one with no such line by Myers'
// algorithm (myers). A line added to base and target alike then stays an
// addition to both, never a cause to align the case's change anew
// around the invocation's many repeated lines ("},", "{", "kind":
// "absent"), which a shortest edit script may do.
func editScript(a, b []string) []op { return patience(a, b, 0) }

// patience is editScript on a and b, which start at line off of the base.
func patience(a, b []string, off int) []op {
	var ops []op
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		ops = append(ops, op{' ', a[pre], off + pre})
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ma, mb, moff := a[pre:len(a)-suf], b[pre:len(b)-suf], off+pre
	switch anchors := uniqueAnchors(ma, mb); {
	case len(ma) == 0 || len(mb) == 0:
		for i, l := range ma {
			ops = append(ops, op{'-', l, moff + i})
		}
		for _, l := range mb {
			ops = append(ops, op{'+', l, -1})
		}
	case len(anchors) == 0:
		for _, o := range myers(ma, mb) {
			if o.kind != '+' {
				o.a += moff
			}
			ops = append(ops, o)
		}
	default:
		pa, pb := 0, 0
		for _, an := range anchors {
			ops = append(ops, patience(ma[pa:an[0]], mb[pb:an[1]], moff+pa)...)
			ops = append(ops, op{' ', ma[an[0]], moff + an[0]})
			pa, pb = an[0]+1, an[1]+1
		}
		ops = append(ops, patience(ma[pa:], mb[pb:], moff+pa)...)
	}
	for i := len(a) - suf; i < len(a); i++ {
		ops = append(ops, op{' ', a[i], off + i})
	}
	return ops
}

// uniqueAnchors returns the pairs (i, j), a[i] == b[j], of lines that
// occur once in a and once in b, the longest run of them in the same
// order in both (patience sorting), in order.
func uniqueAnchors(a, b []string) [][2]int {
	type seen struct{ na, nb, ia, ib int }
	count := map[string]*seen{}
	for i, l := range a {
		c := count[l]
		if c == nil {
			c = &seen{}
			count[l] = c
		}
		c.na++
		c.ia = i
	}
	for j, l := range b {
		if c := count[l]; c != nil {
			c.nb++
			c.ib = j
		}
	}
	var pairs [][2]int
	for i, l := range a {
		if c := count[l]; c.na == 1 && c.nb == 1 {
			pairs = append(pairs, [2]int{i, c.ib})
		}
	}
	// Longest increasing run of pairs by j: tails[k] is the index of the
	// pair ending the best run of length k+1, prev links each pair back.
	var tails []int
	prev := make([]int, len(pairs))
	for p, pr := range pairs {
		k, _ := slices.BinarySearchFunc(tails, pr[1], func(t, j int) int { return pairs[t][1] - j })
		if k > 0 {
			prev[p] = tails[k-1]
		} else {
			prev[p] = -1
		}
		if k == len(tails) {
			tails = append(tails, p)
		} else {
			tails[k] = p
		}
	}
	if len(tails) == 0 {
		return nil
	}
	out := make([][2]int, len(tails))
	for p, k := tails[len(tails)-1], len(tails)-1; k >= 0; p, k = prev[p], k-1 {
		out[k] = pairs[p]
	}
	return out
}

// myers is a shortest edit script from a to b (Myers' O(ND) algorithm),
// with removals before additions in each change.
func myers(a, b []string) []op {
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
