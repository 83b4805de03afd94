// Package secrets is bwpolicy's knowledge of credentials (H5, H7): which
// environment variable names and which values look like a secret, the
// variables that name where credentials live, and the command-line
// positions that carry one. It is a leaf (standard library only): the
// compile (facts, compiler) and the launcher's re-check (runtime, bwrun)
// both import it, so each rule is written once.
package secrets
