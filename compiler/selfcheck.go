package compiler

// This file is the pipeline's last stage: the compiler proves its own
// output with verify's invariants before handing it out. An invocation
// the emitter got wrong (a protection at the wrong place, a mask a later
// bind covers) is refused here rather than run: bwrun trusts what the
// compiler froze.

import (
	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/verify"
)

// selfCheck runs verify.Check on the compiled invocation; each
// violation is an error, and the invocation is withheld. A Lint
// compilation hands out no invocation, and the self-check's findings
// are about this machine's invocation, never the settings (Host): it
// does not run there.
func selfCheck(st *state) {
	inv := st.res.Invocation
	if inv == nil || st.req.Lint != nil {
		return
	}
	vs := verify.Check(inv)
	if len(vs) == 0 {
		return
	}
	for _, v := range vs {
		st.res.Diags.Add(diag.Diagnostic{Severity: diag.Error, Rule: string(invocation.ReasonVerify), Host: true,
			Pos:     st.res.Document.FilePos(),
			Summary: "the compiled invocation breaks its own invariant (an internal error; nothing was written): " + v.String()})
	}
	st.res.Invocation = nil
}
