package compiler

import (
	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/hazard/startup"
	"github.com/bwpolicy/bwpolicy/seccomp"
)

// known is the policy input's "known" section: the names settings may
// use where the list lives in Go (facts, seccomp), so the policy stage
// checks them and emit never sees an unknown one.
type known struct {
	// ProtectNames are the names protect.allow accepts.
	ProtectNames []string `json:"protect_names"`
	// SeccompGroups are the groups seccomp.allow accepts, in their
	// stable order.
	SeccompGroups []seccompGroup `json:"seccomp_groups"`
}

// seccompGroup is one relaxable seccomp group.
type seccompGroup struct {
	Name string `json:"name"`
	// RelaxWith names the groups that must be relaxed with it, and
	// RelaxReason says why.
	RelaxWith   []string `json:"relax_with"`
	RelaxReason string   `json:"relax_reason"`
}

// knownNames is the "known" section, built once and never changed.
var knownNames = func() *known {
	k := known{ProtectNames: append(append(append([]string(nil), facts.ProtectedNames...), "core.hooksPath", facts.AllowPath, facts.AllowPastBound, "PYTHONPATH"), startup.FileVars...)}
	for _, g := range seccomp.Groups() {
		rw := g.RelaxWith
		if rw == nil {
			rw = []string{}
		}
		k.SeccompGroups = append(k.SeccompGroups, seccompGroup{Name: g.Name, RelaxWith: rw, RelaxReason: seccomp.RelaxReason(g.Name)})
	}
	return &k
}()
