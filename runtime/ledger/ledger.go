// Package ledger is H9's record of what the user trusts in an
// environment's writable set: every file a later host program runs code
// from (git configuration with a code key, hooks, pointers, to-do lists,
// start-up files) and the directories that hold them, by identity
// (device, inode, size, status-change time) and content hash. The
// post-command scan judges a code-bearing file by it: one not in the
// ledger, or not as the ledger has it, is the command's and is set
// aside, whatever its times. The ledger is written beside the
// invocation, where no sandboxed command can write; a recompile never
// changes it; only the user adds to it (`bwpolicy trust`), and bwrun
// records a writable directory the first time one of the environment's
// commands can write it, before that command runs (Roots).
//
// The package also keeps the journal (journal.go): the mark a bwrun
// leaves while its command or scan may be unfinished.
package ledger

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Suffix names an environment's ledger: INVOCATION + Suffix.
const Suffix = ".ledger"

// header is the first line of a ledger file.
const header = "bwpolicy-ledger 1"

// maxHashed bounds the bytes of one file the ledger hashes: a larger
// file is recorded by identity only and never trusted once that
// changes (it cannot be re-hashed).
const maxHashed = 64 << 20

// maxFile bounds a ledger file read back.
const maxFile = 256 << 20

// Kind is what a ledger entry records.
type Kind uint8

// The kinds of entries.
const (
	// File is a regular file: trusted while its content hash is the
	// recorded one.
	File Kind = iota + 1
	// Dir is a directory: trusted while it is the same directory
	// (device and inode), so that one renamed into its place is not.
	Dir
	// Link is a symbolic link: trusted while it holds the same target
	// and, when that is a regular file, the target's content is the
	// recorded one.
	Link
	// Config is a regular file judged by a digest of its content the
	// caller makes (RecordDigest, TrustsDigest; runtime: the code-bearing
	// entries of a git configuration, git.ConfigDigest): trusted while
	// that digest is the recorded one, so an edit the digest leaves out
	// is no change.
	Config
)

// maxDigested bounds the bytes of a Config file read to digest: a
// larger one is recorded by identity only (Unhashed).
const maxDigested = 4 << 20

// Entry is one recorded path.
type Entry struct {
	Kind       Kind
	Dev, Ino   uint64
	Size       int64
	Ctime      int64 // status-change time, ns
	TDev, TIno uint64
	TSize      int64 // a link's target: identity, size and ctime
	TCtime     int64
	Hash       [32]byte // content (File), target text and target content (Link)
	// Unhashed is set for a file too large to hash: trusted only while
	// its identity and ctime are unchanged.
	Unhashed bool
}

// Ledger is one environment's record. The zero value is not usable:
// New or Load.
type Ledger struct {
	// Roots are the writable directories recorded whole, in order.
	Roots   []Root
	entries map[string]Entry
	// Unresolved is set while a scan of the environment has left
	// something unjudged (its report's Unresolved: a budget or bound ran
	// out, a file could not be set aside) and no later scan has judged
	// the whole writable set since: code a command left then may lie
	// where a later invocation binds it read-only, so the scans judge
	// those places too until one finishes resolved (runtime's EnvState).
	Unresolved bool
	// Changed is set when Record or AddRoot changed the ledger since it
	// was loaded or saved.
	Changed bool
}

// SetUnresolved sets Unresolved to u, marking the ledger changed when
// that changes it.
func (l *Ledger) SetUnresolved(u bool) {
	if l.Unresolved != u {
		l.Unresolved, l.Changed = u, true
	}
}

// Root is a writable directory recorded whole, At (Unix ns) when.
type Root struct {
	Path string
	At   int64
}

// New returns an empty ledger.
func New() *Ledger { return &Ledger{entries: map[string]Entry{}} }

// Len is the number of recorded paths.
func (l *Ledger) Len() int { return len(l.entries) }

// Has reports whether p is recorded (as anything).
func (l *Ledger) Has(p string) bool {
	_, ok := l.entries[p]
	return ok
}

// Covers reports whether directory p lies within a recorded root.
func (l *Ledger) Covers(p string) bool {
	_, ok := l.RecordedAt(p)
	return ok
}

// RecordedAt returns when the root covering p was recorded.
func (l *Ledger) RecordedAt(p string) (int64, bool) {
	for _, r := range l.Roots {
		if p == r.Path || strings.HasPrefix(p, r.Path+"/") || r.Path == "/" {
			return r.At, true
		}
	}
	return 0, false
}

// AddRoot records that the writable directory r was recorded whole, at
// time at (Unix ns).
func (l *Ledger) AddRoot(r string, at int64) {
	if l.Covers(r) {
		return
	}
	l.Roots = append(l.Roots, Root{Path: r, At: at})
	l.Changed = true
}

// Record records what is at p now (not followed; a link's target is
// read too). Nothing there is no error and records nothing.
func (l *Ledger) Record(p string) error {
	e, err := observe(p, nil)
	return l.put(p, e, err)
}

// put records e, observed at p (err: the observation's error; nothing
// there records nothing).
func (l *Ledger) put(p string, e Entry, err error) error {
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
		return nil
	}
	if err != nil {
		return err
	}
	if old, ok := l.entries[p]; !ok || old != e {
		l.entries[p] = e
		l.Changed = true
	}
	return nil
}

// RecordDigest records what is at p now as Record does, but a regular
// file as a Config entry whose Hash is digest(content): judged later by
// TrustsDigest with the same digest. Something else there (a link, a
// directory) is recorded as Record records it.
func (l *Ledger) RecordDigest(p string, digest func([]byte) [32]byte) error {
	e, err := observeDigest(p, nil, digest)
	return l.put(p, e, err)
}

// TrustsDigest is Trusts for a file recorded by RecordDigest: a Config
// entry is trusted while the file is a regular file whose digest is the
// recorded one (unchanged identity and ctime skip re-reading it). An
// entry recorded otherwise (Record: by its whole content; a ledger
// older than Config entries, `bwpolicy trust`) is judged by Trusts.
func (l *Ledger) TrustsDigest(p string, digest func([]byte) [32]byte) bool {
	want, ok := l.entries[p]
	if !ok {
		return false
	}
	if want.Kind != Config {
		return l.Trusts(p)
	}
	got, err := observeDigest(p, &want, digest)
	return err == nil && got.matches(want)
}

// observeDigest is observe for a Config entry: a regular file is
// digested (not followed; a FIFO swapped in is not waited on), anything
// else observed as observe does.
func observeDigest(p string, hint *Entry, digest func([]byte) [32]byte) (Entry, error) {
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		return Entry{}, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return observe(p, nil)
	}
	e := Entry{Kind: Config, Dev: st.Dev, Ino: st.Ino, Size: st.Size, Ctime: st.Ctim.Nano()}
	if hint != nil && hint.Kind == Config && hint.Dev == e.Dev && hint.Ino == e.Ino && hint.Size == e.Size && hint.Ctime == e.Ctime {
		e.Hash, e.Unhashed = hint.Hash, hint.Unhashed
		return e, nil
	}
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return Entry{}, err
	}
	f := os.NewFile(uintptr(fd), p)
	defer f.Close()
	var fst unix.Stat_t
	if err := unix.Fstat(fd, &fst); err != nil {
		return Entry{}, err
	}
	if fst.Mode&unix.S_IFMT != unix.S_IFREG || fst.Dev != st.Dev || fst.Ino != st.Ino {
		return Entry{}, fmt.Errorf("%s: replaced while read", p)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxDigested+1))
	if err != nil {
		return Entry{}, err
	}
	if len(b) > maxDigested {
		e.Unhashed = true // identity only: never trusted once that changes
		return e, nil
	}
	e.Hash = digest(b)
	return e, nil
}

// Trusts reports whether what is at p now is what the ledger recorded
// there: the same kind; a directory, the same one; a file or a link's
// target, the same content (unchanged identity and status-change time
// skip re-reading it: no unprivileged program sets a ctime back).
func (l *Ledger) Trusts(p string) bool {
	want, ok := l.entries[p]
	if !ok {
		return false
	}
	got, err := observe(p, &want)
	return err == nil && got.matches(want)
}

// Untouched reports whether the directory at p is the one recorded
// there with no entry added, removed or renamed since (its ctime): a
// command cannot have made it larger.
func (l *Ledger) Untouched(p string) bool {
	want, ok := l.entries[p]
	if !ok || want.Kind != Dir {
		return false
	}
	got, err := observe(p, &want)
	return err == nil && got.Kind == Dir && got.Dev == want.Dev && got.Ino == want.Ino && got.Ctime == want.Ctime
}

// matches compares an observation (made with want as its hint) to the
// recorded entry.
func (e Entry) matches(want Entry) bool {
	switch {
	case e.Kind != want.Kind:
		return false
	case e.Unhashed || want.Unhashed:
		return e == want // too large to hash: trusted while untouched
	case e.Kind == Dir:
		return e.Dev == want.Dev && e.Ino == want.Ino
	}
	return e.Hash == want.Hash
}

// observe looks at p. With hint (the recorded entry), a file or link
// target whose identity, size and ctime are the hint's is not re-read:
// its hash is taken from the hint.
func observe(p string, hint *Entry) (Entry, error) {
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		return Entry{}, err
	}
	e := Entry{Dev: st.Dev, Ino: st.Ino, Size: st.Size, Ctime: st.Ctim.Nano()}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		e.Kind = Dir
		e.Size = 0
		return e, nil
	case unix.S_IFREG:
		e.Kind = File
		if hint != nil && hint.Kind == File && hint.Dev == e.Dev && hint.Ino == e.Ino && hint.Size == e.Size && hint.Ctime == e.Ctime {
			e.Hash, e.Unhashed = hint.Hash, hint.Unhashed
			return e, nil
		}
		h, ok, err := hashFile(p, unix.O_NOFOLLOW)
		if err != nil {
			return Entry{}, err
		}
		e.Hash, e.Unhashed = h, !ok
		return e, nil
	case unix.S_IFLNK:
		e.Kind = Link
		var ts unix.Stat_t
		terr := unix.Stat(p, &ts)
		if terr == nil {
			e.TDev, e.TIno, e.TSize, e.TCtime = ts.Dev, ts.Ino, ts.Size, ts.Ctim.Nano()
		}
		// A link's text never changes in place: the same link (inode,
		// ctime) to the same unchanged target is what was hashed.
		if hint != nil && hint.Kind == Link && hint.Dev == e.Dev && hint.Ino == e.Ino && hint.Ctime == e.Ctime &&
			hint.TDev == e.TDev && hint.TIno == e.TIno && hint.TSize == e.TSize && hint.TCtime == e.TCtime {
			e.Hash, e.Unhashed = hint.Hash, hint.Unhashed
			return e, nil
		}
		t, err := os.Readlink(p)
		if err != nil {
			return Entry{}, err
		}
		hs := sha256.New()
		io.WriteString(hs, t)
		hs.Write([]byte{0})
		switch {
		case terr != nil:
			io.WriteString(hs, "dangling")
		case ts.Mode&unix.S_IFMT == unix.S_IFREG:
			th, ok, err := hashFile(p, 0)
			if err != nil {
				return Entry{}, err
			}
			e.Unhashed = !ok
			hs.Write(th[:])
		default:
			fmt.Fprintf(hs, "%d:%d", ts.Dev, ts.Ino)
		}
		copy(e.Hash[:], hs.Sum(nil))
		return e, nil
	}
	return Entry{}, fmt.Errorf("%s: neither a file, a directory nor a symbolic link", p)
}

// hashFile hashes the regular file at p (flags: O_NOFOLLOW or 0),
// never blocking on a FIFO swapped in. ok is false past maxHashed.
func hashFile(p string, flags int) (h [32]byte, ok bool, err error) {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK|unix.O_NOCTTY|flags, 0)
	if err != nil {
		return h, false, err
	}
	f := os.NewFile(uintptr(fd), p)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return h, false, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return h, false, fmt.Errorf("%s: not a regular file", p)
	}
	hs := sha256.New()
	n, err := io.Copy(hs, io.LimitReader(f, maxHashed+1))
	if err != nil {
		return h, false, err
	}
	copy(h[:], hs.Sum(nil))
	return h, n <= maxHashed, nil
}

// Save writes the ledger to p atomically (a temporary file beside it,
// renamed into place), mode 0600.
func (l *Ledger) Save(p string) error {
	var b bytes.Buffer
	b.WriteString(header + "\n")
	if l.Unresolved {
		b.WriteString("unresolved\n")
	}
	for _, r := range l.Roots {
		fmt.Fprintf(&b, "root %d %s\n", r.At, strconv.Quote(r.Path))
	}
	for _, k := range l.Paths() {
		e := l.entries[k]
		u := 0
		if e.Unhashed {
			u = 1
		}
		fmt.Fprintf(&b, "e %d %d %d %d %d %d %d %d %d %d %x %s\n", e.Kind, u, e.Dev, e.Ino, e.Size, e.Ctime,
			e.TDev, e.TIno, e.TSize, e.TCtime, e.Hash, strconv.Quote(k))
	}
	if err := writeAtomic(p, b.Bytes()); err != nil {
		return err
	}
	l.Changed = false
	return nil
}

// Load reads the ledger at p (an error wrapping fs.ErrNotExist when
// there is none). The file must be the caller's own regular file, not a
// symlink, with one link, writable by nobody else.
func Load(p string) (*Ledger, error) {
	b, err := readOwn(p, maxFile)
	if err != nil {
		return nil, err
	}
	l := New()
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if n == 1 {
			if line != header {
				return nil, fmt.Errorf("ledger %s: not a bwpolicy ledger (first line %q)", p, line)
			}
			continue
		}
		if err := l.parseLine(line); err != nil {
			return nil, fmt.Errorf("ledger %s:%d: %v", p, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("ledger %s: %v", p, err)
	}
	if n == 0 {
		return nil, fmt.Errorf("ledger %s: empty", p)
	}
	l.Changed = false
	return l, nil
}

func (l *Ledger) parseLine(line string) error {
	if line == "unresolved" {
		l.Unresolved = true
		return nil
	}
	if r, ok := strings.CutPrefix(line, "root "); ok {
		at, q, _ := strings.Cut(r, " ")
		t, err := strconv.ParseInt(at, 10, 64)
		if err != nil {
			return fmt.Errorf("bad root %s", r)
		}
		q, err = strconv.Unquote(q)
		if err != nil || !path.IsAbs(q) {
			return fmt.Errorf("bad root %s", r)
		}
		l.Roots = append(l.Roots, Root{Path: q, At: t})
		return nil
	}
	f := strings.SplitN(line, " ", 13)
	if len(f) != 13 || f[0] != "e" {
		return errors.New("malformed entry")
	}
	var nums [10]int64
	for i := range nums {
		v, err := strconv.ParseInt(f[i+1], 10, 64)
		if err != nil {
			return fmt.Errorf("malformed number %q", f[i+1])
		}
		nums[i] = v
	}
	e := Entry{Kind: Kind(nums[0]), Unhashed: nums[1] == 1, Dev: uint64(nums[2]), Ino: uint64(nums[3]), Size: nums[4], Ctime: nums[5],
		TDev: uint64(nums[6]), TIno: uint64(nums[7]), TSize: nums[8], TCtime: nums[9]}
	if e.Kind < File || e.Kind > Config {
		return fmt.Errorf("unknown kind %d", e.Kind)
	}
	h, err := hexDecode(f[11])
	if err != nil {
		return err
	}
	e.Hash = h
	p, err := strconv.Unquote(f[12])
	if err != nil || !path.IsAbs(p) {
		return fmt.Errorf("bad path %s", f[12])
	}
	l.entries[p] = e
	return nil
}

func hexDecode(s string) (h [32]byte, err error) {
	if len(s) != 64 {
		return h, fmt.Errorf("bad hash %q", s)
	}
	for i := 0; i < 32; i++ {
		v, err := strconv.ParseUint(s[2*i:2*i+2], 16, 8)
		if err != nil {
			return h, fmt.Errorf("bad hash %q", s)
		}
		h[i] = byte(v)
	}
	return h, nil
}

// Paths returns the recorded paths, sorted.
func (l *Ledger) Paths() []string {
	keys := make([]string, 0, len(l.entries))
	for k := range l.entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
