// Package scan is H9's post-command scan (issue 26): after every
// command, with the sandbox dead, it walks the host side of the
// invocation's writable set and sets aside (renames next to itself,
// never deletes) what a later host program would run that the
// environment's ledger (runtime/ledger) does not hold as it is: git
// hooks, code-bearing configuration keys, pointers to git directories,
// start-up files, python site hooks. ScanGit walks the whole writable
// set (with the directory index, ScanGitIndexed); Changes, with the
// environment's watcher (runtime/watch) answering, re-reads only the
// directories that changed and re-visits the repositories and links
// the last finished scan kept (scanchanges.go). RecordLedger records
// what the user has when the environment is first run.
package scan
