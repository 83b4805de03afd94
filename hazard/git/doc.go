// Package git is bwpolicy's knowledge of how git finds and runs code:
// its configuration format (ParseConfig) and the variables that run a
// program (CodeKeys), the names it runs hooks and to-do lists from,
// how it reads pointers (.git files, commondir, "~" paths), and the walk
// of a directory tree for repositories by git's discovery rules
// (RepoWalk). It uses the standard library only: the compile (facts)
// and bwrun's post-command scan (runtime) both import it.
package git
