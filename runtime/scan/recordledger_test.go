package scan

import (
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/runtime/ledger"
)

// RecordLedger is RecordLedgerIndexed without a directory index (the
// tests' shorthand).
func RecordLedger(inv *invocation.Invocation, home string, led *ledger.Ledger) (roots []string, warnings []string) {
	return RecordLedgerIndexed(inv, home, led, func() *ledger.Index { return nil })
}
