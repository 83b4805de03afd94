package invocation

import (
	"testing"
)

// TestValidateChecks runs each named check of Validate alone: it passes
// the valid invocation, and refuses the one mistake it is for. Every
// check of the table has a case (a check added without one fails).
func TestValidateChecks(t *testing.T) {
	valid := func(t *testing.T) *Invocation {
		inv, err := Decode([]byte(validJSON))
		if err != nil {
			t.Fatal(err)
		}
		return inv
	}
	breaks := map[string]func(inv *Invocation){
		"bwrap":           func(inv *Invocation) { inv.Bwrap.Path = "bwrap" },
		"fds":             func(inv *Invocation) { inv.FDs[0].Num = 2 },
		"seccomp-program": func(inv *Invocation) { inv.Seccomp.Program = inv.Seccomp.Program[:5] },
		"args":            func(inv *Invocation) { inv.Bwrap.Args = append(inv.Bwrap.Args, "--") },
		"fds-used":        func(inv *Invocation) { inv.FDs = append(inv.FDs, FD{Num: 9, Kind: FDEmpty}) },
		"rlimits-fds":     func(inv *Invocation) { inv.FDs = inv.FDs[2:] },
		"preconditions":   func(inv *Invocation) { inv.Preconditions[0].Why = "H9 (profile home)" },
		"env":             func(inv *Invocation) { inv.Env.Checked["PATH"] = "/usr/bin" },
		"landlock":        func(inv *Invocation) { inv.Landlock = &Landlock{TCPConnect: []uint16{0}} },
		"expose":          func(inv *Invocation) { inv.Expose = &Expose{Roots: []string{"/"}} },
		"explain":         func(inv *Invocation) { inv.Explain[0].Rule = "S99" },
	}
	seen := map[string]bool{}
	for _, c := range checks {
		if seen[c.name] {
			t.Errorf("check %s listed twice", c.name)
		}
		seen[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			if err := c.run(valid(t)); err != nil {
				t.Fatalf("refuses the valid invocation: %v", err)
			}
			brk, ok := breaks[c.name]
			if !ok {
				t.Fatal("no case: add the mistake this check is for")
			}
			inv := valid(t)
			brk(inv)
			if err := c.run(inv); err == nil {
				t.Fatal("accepted the mistake it is for")
			}
		})
	}
	if len(seen) != len(breaks) {
		t.Errorf("%d checks, %d cases: a case names no check", len(seen), len(breaks))
	}
}
