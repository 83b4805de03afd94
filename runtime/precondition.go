package runtime

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/bwpolicy/bwpolicy/hazard/filekind"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"golang.org/x/sys/unix"
)

// Mismatch is one precondition that no longer holds.
type Mismatch struct {
	// Precondition is what the invocation recorded.
	Precondition invocation.Precondition
	// Kind is what is there now (one of the Kind constants); Target is the
	// symlink's current target when Kind is KindSymlink.
	Kind   string
	Target string
	// NewEntry is set when a directory listed by a hide glob (its MTime
	// changed) has a new entry that makes the invocation stale: a name
	// matching Pattern, or, with Pattern empty, a new subdirectory.
	NewEntry string
	Pattern  string
	// Err is set when the path could not be examined at all.
	Err error
	// EnvVar and EnvPath are set (and Precondition is empty) when a
	// credential variable names, at run time, a path the invocation does
	// not account for (CheckCredentialEnv).
	EnvVar, EnvPath string
	// Changed, when set, says how the file at Precondition.Path changed in
	// a way its kind does not show (bwrap's identity).
	Changed string
	// Note, when set, is the whole description (a stale mark's reason).
	Note string
}

// String describes the mismatch: the path, what was recorded and what
// is there now.
func (m Mismatch) String() string {
	if m.Note != "" {
		return m.Note
	}
	if m.EnvVar != "" {
		return fmt.Sprintf("$%s names %s, which this invocation does not hide (H7; the variable is removed, the path would still be reachable)", m.EnvVar, m.EnvPath)
	}
	p := m.Precondition
	why := ""
	if p.Why != "" {
		why = " (" + p.WhyString() + ")"
	}
	if m.Changed != "" {
		return fmt.Sprintf("%s%s: %s", p.Path, why, m.Changed)
	}
	if m.Err != nil {
		return fmt.Sprintf("%s%s: recorded as %s, cannot check it now: %v", p.Path, why, describeKind(p.Kind, p.Target), m.Err)
	}
	if m.NewEntry != "" {
		if m.Pattern == invocation.HomeNewEntries {
			return fmt.Sprintf("%s%s: new entry %q of the home directory (the home layout binds back the non-dot entries it found and holds the targets of the dot links it found: recompile)", p.Path, why, m.NewEntry)
		}
		if m.Pattern != "" {
			return fmt.Sprintf("%s%s: new entry %q matches hide glob %q (it would not be hidden)", p.Path, why, m.NewEntry, m.Pattern)
		}
		if strings.ContainsRune(m.NewEntry, '/') {
			return fmt.Sprintf("%s%s: new entry %s under a new directory would be matched by a \"**\" hide glob (it would not be hidden)", p.Path, why, m.NewEntry)
		}
		return fmt.Sprintf("%s%s: new directory %q is too large or unreadable to search for hide-glob matches", p.Path, why, m.NewEntry)
	}
	if p.Kind == invocation.KindSymlink && m.Kind == invocation.KindSymlink {
		return fmt.Sprintf("%s%s: was a symlink to %q when compiled, now points to %q", p.Path, why, p.Target, m.Target)
	}
	return fmt.Sprintf("%s%s: was %s when compiled, is now %s", p.Path, why, describeKind(p.Kind, p.Target), describeKind(m.Kind, m.Target))
}

func describeKind(kind, target string) string {
	switch kind {
	case invocation.KindAbsent:
		return "absent"
	case invocation.KindFile:
		return "a regular file"
	case invocation.KindDir:
		return "a directory"
	case invocation.KindSymlink:
		return fmt.Sprintf("a symlink to %q", target)
	case invocation.KindSocket:
		return "a socket"
	case invocation.KindOther:
		return "a special file"
	case invocation.KindDenied:
		return "out of reach (a directory on the way, another user's, denies search)"
	}
	return kind
}

// StaleError reports that the host no longer matches the state an
// invocation was compiled under. The runtime refuses to run a stale
// invocation: a path that appeared after compilation would not be masked.
type StaleError struct {
	Mismatches []Mismatch
}

// Error lists every mismatch and says to recompile.
func (e *StaleError) Error() string {
	var b strings.Builder
	b.WriteString("stale invocation: the host changed since it was compiled:")
	for _, m := range e.Mismatches {
		b.WriteString("\n  ")
		b.WriteString(m.String())
	}
	b.WriteString("\nrecompile with `bwpolicy compile`")
	return b.String()
}

// KindOf reports what is at path now without following a final symlink:
// one of the Kind constants, and the target for a symlink. A path whose
// parent is missing or not a directory is KindAbsent.
func KindOf(path string) (kind, target string, err error) {
	kind, target, _, err = lstatKind(path)
	return kind, target, err
}

// lstatKind is KindOf plus the modification time (ns since the epoch).
// It calls lstat(2) directly: os.Lstat's allocations are paid, in a
// fresh process, once per precondition on every command's path.
func lstatKind(path string) (kind, target string, mtime int64, err error) {
	var st unix.Stat_t
	err = unix.Lstat(path, &st)
	for err == unix.EINTR { // as os.Lstat does (network and FUSE file systems)
		err = unix.Lstat(path, &st)
	}
	if err != nil {
		if err == unix.ENOENT || err == unix.ENOTDIR {
			return invocation.KindAbsent, "", 0, nil
		}
		if filekind.Unreachable(path, err) {
			return invocation.KindDenied, "", 0, nil
		}
		return "", "", 0, &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	mtime = st.Mtim.Nano()
	kind = filekind.Of(st.Mode)
	if kind == invocation.KindSymlink {
		t, err := os.Readlink(path)
		if err != nil {
			return "", "", 0, err
		}
		return kind, t, mtime, nil
	}
	return kind, "", mtime, nil
}

// CheckPreconditions lstat()s every recorded path (and readlink()s the
// symlinks) and returns a *StaleError listing each one whose kind or
// symlink target changed since compilation. For a directory a hide glob
// listed (MTime set) whose modification time changed, it lists that one
// directory (no walk): a new entry that is not itself a recorded
// precondition makes the invocation stale if its name matches one of the
// directory's Match patterns or, with NewDirs, if it is a new directory
// holding such a name (searched to at most maxNewDirEntries entries, past
// which it counts as stale). Other new entries (a command's build
// output) are fine.
func CheckPreconditions(inv *invocation.Invocation) error {
	var bad []Mismatch
	var buf []byte // one getdents buffer for every listing
	names := namesChecks(inv.Preconditions)
	listed := listedKinds(inv.Preconditions, &buf, names)
	for _, nc := range names {
		if buf == nil {
			buf = make([]byte, direntBufSize)
		}
		nc.list(buf)
		bad = append(bad, nc.mismatches()...)
	}
	for i, p := range inv.Preconditions {
		if p.Names != nil {
			continue // checked above
		}
		var kind, target string
		var mtime int64
		var err error
		if listed != nil && listed[i] != "" {
			kind = listed[i]
		} else {
			kind, target, mtime, err = lstatKind(p.Path)
		}
		switch {
		case err != nil:
			bad = append(bad, Mismatch{Precondition: p, Err: err})
		case kind != p.Kind || (kind == invocation.KindSymlink && target != p.Target):
			bad = append(bad, Mismatch{Precondition: p, Kind: kind, Target: target})
		case p.MTime != 0 && mtime != p.MTime && kind == invocation.KindDir:
			if m, stale := newEntries(p, inv.Preconditions); stale {
				m.Kind, m.Target = kind, target
				bad = append(bad, m)
			}
		}
	}
	if len(bad) > 0 {
		return &StaleError{Mismatches: bad}
	}
	return nil
}

// newEntries lists the directory p (one level) for an entry that makes
// the invocation stale (see CheckPreconditions); pre are the
// invocation's preconditions: an entry one of them records (a row of its
// own, or a name of a names row of p) is not new.
func newEntries(p invocation.Precondition, pre []invocation.Precondition) (Mismatch, bool) {
	recorded := recordedIn(p.Path, pre)
	f, err := os.Open(p.Path)
	if err != nil {
		return Mismatch{Precondition: p, Err: err}, true
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return Mismatch{Precondition: p, Err: err}, true
	}
	for _, e := range ents {
		name := e.Name()
		if recorded[name] {
			continue
		}
		for _, pat := range p.Match {
			if ok, _ := path.Match(pat, name); ok {
				return Mismatch{Precondition: p, NewEntry: name, Pattern: pat}, true
			}
			// A dot entry of HOME made a symlink since the compile: its
			// chain was never held (facts.homeDotLinks), so stale too.
			if pat == invocation.HomeNewEntries && e.Type()&os.ModeSymlink != 0 {
				return Mismatch{Precondition: p, NewEntry: name, Pattern: pat}, true
			}
		}
		if p.NewDirs && e.IsDir() {
			// A "**" glob would descend into a new directory: search it
			// (bounded, symlinks not followed) for a name it would hide.
			budget := maxNewDirEntries
			if hit, ok := searchNewDir(filepath.Join(p.Path, name), p.Match, &budget); !ok || hit != "" {
				m := Mismatch{Precondition: p, NewEntry: name}
				if hit != "" {
					m.NewEntry = hit
				}
				return m, true
			}
		}
	}
	return Mismatch{}, false
}

// recordedIn returns the names of the entries of dir that pre records:
// the last component of a row directly below dir, each name of a names
// row of dir. One pass, no path joined: HOME's row is checked this way
// on every run once HOME's mtime moved (issue 30 §4).
func recordedIn(dir string, pre []invocation.Precondition) map[string]bool {
	out := map[string]bool{}
	for _, q := range pre {
		if q.Path == dir {
			for _, n := range q.Names {
				out[n] = true
			}
			continue
		}
		if rest, ok := strings.CutPrefix(q.Path, dir); ok && len(rest) > 1 && rest[0] == '/' && !strings.Contains(rest[1:], "/") {
			out[rest[1:]] = true
		}
	}
	return out
}

// maxNewDirEntries bounds the search of a directory created since
// compilation; past it the invocation counts as stale.
const maxNewDirEntries = 4096

// searchNewDir looks under dir for a name matching one of patterns. It
// returns the first match, or ok=false when the budget ran out (or dir
// could not be read): the caller then treats the invocation as stale.
func searchNewDir(dir string, patterns []string, budget *int) (hit string, ok bool) {
	f, err := os.Open(dir)
	if err != nil {
		return "", false
	}
	ents, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return "", false
	}
	for _, e := range ents {
		*budget--
		if *budget < 0 {
			return "", false
		}
		child := filepath.Join(dir, e.Name())
		for _, pat := range patterns {
			if ok, _ := path.Match(pat, e.Name()); ok {
				return child, true
			}
		}
		if e.IsDir() { // DirEntry.IsDir is false for a symlink: not followed
			if hit, ok := searchNewDir(child, patterns, budget); !ok || hit != "" {
				return hit, ok
			}
		}
	}
	return "", true
}
