package diag

import (
	"fmt"
	"strings"
)

// DidYouMean returns `; did you mean "NAME"?` for the candidate closest
// to name — at most two edits away (at most one for a name of three
// bytes or fewer), ties broken alphabetically — or, failing that, the
// one candidate name is a prefix of; else "". Diagnostics about a
// mistyped command or settings key append it to their summary.
func DidYouMean(name string, candidates []string) string {
	limit := 2
	if len(name) <= 3 {
		limit = 1
	}
	best, bestD, prefixes := "", limit+1, 0
	var prefix string
	for _, c := range candidates {
		if c == name {
			return ""
		}
		if d := EditDistance(name, c); d < bestD || (d == bestD && c < best) {
			best, bestD = c, d
		}
		if name != "" && strings.HasPrefix(c, name) {
			prefix, prefixes = c, prefixes+1
		}
	}
	switch {
	case best != "":
		return fmt.Sprintf("; did you mean %q?", best)
	case prefixes == 1:
		return fmt.Sprintf("; did you mean %q?", prefix)
	}
	return ""
}

// EditDistance is the Levenshtein distance of a and b, in bytes, with a
// transposition of two adjacent bytes counted as one edit ("memroy" is
// one edit from "memory").
func EditDistance(a, b string) int {
	// d[i][j] is the distance of a[:i] and b[:j]; three rows suffice.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
