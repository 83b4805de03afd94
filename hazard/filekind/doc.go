// Package filekind says what kind of file a path is, in the invocation
// format's Kind words, from what the kernel reports: a stat's mode (Of),
// a directory entry's d_type (OfDirent, with EachDirent listing a
// directory by getdents), and whether a path is out of this user's
// reach for good (Unreachable, DenyingDir: KindDenied); and Stat, what
// the compile records of one path. The compile
// (facts) records kinds with it and bwrun's re-check compares them with
// it, so both sides judge a file the same way. Standard library and
// golang.org/x/sys only.
package filekind
