package compiler

import (
	"testing"

	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/profile"
)

// TestProfilePosNested: a finding about a nested profile field is placed
// at that field, not at the profile's file.
func TestProfilePosNested(t *testing.T) {
	p := &profile.Profile{Source: "p.cue", Pos: map[string]diag.Pos{
		"defaults":           {File: "p.cue", Line: 4},
		"defaults.memory_mb": {File: "p.cue", Line: 5, Col: 12},
	}}
	for _, tc := range []struct {
		path []any
		want diag.Pos
	}{
		{[]any{"defaults", "memory_mb"}, diag.Pos{File: "p.cue", Line: 5, Col: 12}},
		{[]any{"defaults", "cpu_seconds"}, diag.Pos{File: "p.cue", Line: 4}},
		{[]any{"network"}, diag.Pos{File: "p.cue"}},
		{[]any{"defaults", 0}, diag.Pos{File: "p.cue", Line: 4}},
	} {
		if got := profilePos(p, tc.path); got != tc.want {
			t.Errorf("%v: %s, want %s", tc.path, got, tc.want)
		}
	}
}
