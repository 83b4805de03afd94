package invocation

import (
	"fmt"
	"slices"
)

// LinkExplain sets each explanation row's Args, where unset, to its
// part of args by the rows' counts (shared, not copied); a row whose
// count runs past args is left without. Decode calls it on rows
// Validate accepted; a reader that decoded an invocation some other way
// (verify) calls it on a copy of the rows.
func LinkExplain(rows []Explain, args []string) {
	off := 0
	for i := range rows {
		n := rows[i].N
		if rows[i].Args == nil && n > 0 && n <= len(args)-off {
			rows[i].Args = args[off : off+n : off+n]
		}
		off += max(n, len(rows[i].Args))
	}
}

// validateExplain checks that the explanation rows cover the bwrap
// arguments in order, together all of them, and that rows that carry
// their arguments (the compiler's, before writing) carry exactly those.
// An invocation without rows (written by hand) explains nothing; verify
// reports each argument of it as unexplained.
func validateExplain(inv *Invocation) error {
	if len(inv.Explain) == 0 {
		return nil
	}
	off := 0
	for i, e := range inv.Explain {
		if !e.Rule.Known() {
			return fmt.Errorf("explain[%d]: unknown rule %q (recompile)", i, e.Rule)
		}
		if e.N < 0 || e.N > len(inv.Bwrap.Args)-off {
			return fmt.Errorf("explain[%d]: n %d goes past the %d bwrap arguments (recompile)", i, e.N, len(inv.Bwrap.Args))
		}
		if e.Args != nil && !slices.Equal(e.Args, inv.Bwrap.Args[off:off+e.N]) {
			return fmt.Errorf("explain[%d]: its arguments are not bwrap.args[%d:%d]", i, off, off+e.N)
		}
		off += e.N
	}
	if off != len(inv.Bwrap.Args) {
		return fmt.Errorf("explain covers %d of the %d bwrap arguments: every argument must be explained (recompile)", off, len(inv.Bwrap.Args))
	}
	return nil
}
