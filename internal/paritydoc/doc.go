// Package paritydoc checks docs/hermes-parity.md, the table of the
// behaviours Hermes' own bubblewrap tests assert: every bwpolicy test a
// row names must exist (a sandbox scenario, a golden case, a Go test
// function or a plugin test), so the table cannot point at a test that
// was renamed or removed. It holds no code of its own beyond the test.
package paritydoc
