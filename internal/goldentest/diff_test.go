package goldentest

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// TestDiffApply: Apply(base, Diff(base, target)) == target, on edits
// made at random of texts with many repeated lines (the invocations'
// "--size","268435456", lines).
func TestDiffApply(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	words := []string{"a", "b", "c", `"--size","268435456",`, "", "x y"}
	gen := func(n int) []string {
		var l []string
		for i := 0; i < n; i++ {
			l = append(l, words[r.Intn(len(words))])
		}
		return l
	}
	for i := 0; i < 3000; i++ {
		base := gen(r.Intn(40))
		target := append([]string(nil), base...)
		for e := r.Intn(6); e > 0; e-- {
			p := 0
			if len(target) > 0 {
				p = r.Intn(len(target) + 1)
			}
			switch r.Intn(3) {
			case 0:
				target = append(target[:p], append(gen(1+r.Intn(3)), target[p:]...)...)
			case 1:
				if p < len(target) {
					target = append(target[:p], target[p+1:]...)
				}
			default:
				if p < len(target) {
					target[p] = words[r.Intn(len(words))]
				}
			}
		}
		b, tg := joinLines(base), joinLines(target)
		d := Diff(b, tg)
		got, err := Apply(b, d)
		if err != nil || got != tg {
			t.Fatalf("case %d: base %q target %q diff %q: got %q, %v", i, base, target, d, got, err)
		}
	}
}

// TestDiffStable: lines added to base and target alike, away from the
// case's change, leave the diff as it was (what the format is for).
func TestDiffStable(t *testing.T) {
	var base []string
	for i := 0; i < 200; i++ {
		base = append(base, fmt.Sprintf("line %d", i))
	}
	target := append([]string(nil), base...)
	target[100] = "changed"
	d1 := Diff(joinLines(base), joinLines(target))
	grow := func(l []string) []string {
		out := append([]string(nil), l[:20]...)
		out = append(out, "new precondition")
		return append(out, l[20:]...)
	}
	d2 := Diff(joinLines(grow(base)), joinLines(grow(target)))
	if d1 != d2 || !strings.Contains(d1, "+changed") {
		t.Fatalf("diff changed:\n%s\nvs\n%s", d1, d2)
	}
}

// TestApplyRefusesAMisplacedHunk: a diff whose lines are not in the base
// is an error, not a silently different invocation.
func TestApplyRefusesAMisplacedHunk(t *testing.T) {
	if _, err := Apply("a\nb\n", "@@\n b\n-c\n+d\n"); err == nil {
		t.Fatal("applied a hunk whose lines are not in the base")
	}
}

// TestDiffStableAfterAChange: a line added to base and target alike
// just after the case's change (a new protection's row below the row
// the case changes) leaves the diff as it was: a hunk carries no line
// after its last change.
func TestDiffStableAfterAChange(t *testing.T) {
	base := []string{"header", "  row a: 3", "  row b: 119", "", "environment:"}
	target := append([]string(nil), base...)
	target[1] = "  row a: 10"
	grow := func(l []string) []string {
		out := append([]string(nil), l[:3]...)
		out = append(out, "  row c: 1")
		return append(out, l[3:]...)
	}
	d1 := Diff(joinLines(base), joinLines(target))
	d2 := Diff(joinLines(grow(base)), joinLines(grow(target)))
	if d1 != d2 || !strings.Contains(d1, "+  row a: 10") {
		t.Fatalf("diff changed:\n%s\nvs\n%s", d1, d2)
	}
	if got, err := Apply(joinLines(grow(base)), d1); err != nil || got != joinLines(grow(target)) {
		t.Fatalf("the old diff on the grown base: %q, %v", got, err)
	}
}
