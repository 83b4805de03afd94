// Package startup is the knowledge of what a host runs later without
// being asked (H9): the start-up entries of a writable directory and of
// a home (Names, HomeNames), the variables that name start-up files or
// code directories (FileVars, CodeDirVars), how shells read their rc
// files (UnsetAfterRC), and python's user site directories and .pth
// files. The compile (facts) binds what it names read-only; bwrun's
// post-command scan sets aside what a command created. Standard library
// only: both sides import it.
package startup
