// Package sandboxtest is bwpolicy's real-sandbox test suite:
// for every S property, every R rule that changes what a command can do,
// and H1, H2, H4 and H5, a test compiles settings against a fake home
// directory full of credentials, runs a real command in the sandbox with
// bwrun (or `bwpolicy run`), and asserts both sides: the forbidden thing
// fails, and leaves the host unchanged, and the allowed thing works in the
// same sandbox.
//
// The package holds only tests; this file exists for its documentation.
//
// Running it:
//
//	BWPOLICY_BWRAP=/usr/bin/bwrap go test -count=1 ./sandboxtest/
//	BWPOLICY_BWRAP=$PWD/.cache/bwrap-0.12.0/bwrap go test -count=1 ./sandboxtest/
//
// bwrap is $BWPOLICY_BWRAP, else bwrap on PATH. A missing bwrap fails
// the suite unless BWPOLICY_NO_SANDBOX=1, which skips it.
//
// TestMain builds bwpolicy, bwrun, internal/sysprobe and the helper
// testdata/sbxtool once, into a directory under /var/tmp that every user
// can read (not under /tmp: the sandbox's /tmp is a fresh tmpfs). Each
// scenario builds its own fake HOME and HERMES_HOME under
// /var/tmp/bwpolicy-sbx-*, owned by the identity that runs it, and
// removes it afterwards.
//
// Every scenario runs as each identity: as root the suite runs it as root
// (subtests TestSandbox/root/...) and again as the unprivileged user
// bwtest (TestSandbox/user/..., created with useradd if missing); as any
// other user it runs once, as that user (TestSandbox/user/...).
package sandboxtest
