package ledger

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// PendingInfix names a journal entry: INVOCATION + PendingInfix + a
// unique tail. Each is a copy of the invocation a bwrun runs, written
// before its command starts and removed once its post-command scan has
// finished; the bwrun holds an exclusive flock on it meanwhile, which
// the kernel drops when the process dies, however it dies.
const PendingInfix = ".pending-"

// Journal is one bwrun's "scan pending" mark.
type Journal struct {
	f    *os.File
	path string
}

// Begin writes the mark for the invocation at invPath, holding content
// (the invocation's bytes: what a later recovery scans with), and locks
// it. The file is the caller's, mode 0600, never through a symlink.
func Begin(invPath string, content []byte) (*Journal, error) {
	var suffix [8]byte
	if _, err := unix.Getrandom(suffix[:], 0); err != nil {
		return nil, err
	}
	p := fmt.Sprintf("%s%s%d-%x", invPath, PendingInfix, os.Getpid(), suffix)
	fd, err := unix.Open(p, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot write the scan journal: %w", &os.PathError{Op: "create", Path: p, Err: err})
	}
	f := os.NewFile(uintptr(fd), p)
	if err := unix.Flock(fd, unix.LOCK_EX); err != nil {
		f.Close()
		os.Remove(p)
		return nil, fmt.Errorf("cannot lock the scan journal %s: %v", p, err)
	}
	if _, err := f.Write(content); err != nil {
		f.Close()
		os.Remove(p)
		return nil, fmt.Errorf("cannot write the scan journal %s: %v", p, err)
	}
	return &Journal{f: f, path: p}, nil
}

// Done removes the mark: the scan it stood for has finished.
func (j *Journal) Done() error {
	err := os.Remove(j.path)
	j.f.Close()
	return err
}

// Leave gives the mark up without removing it: its scan did not end
// well, and unlocked, the mark is what the next run finishes first — a
// later command of the same process too (bwrun --serve), which a held
// lock would tell "its bwrun still runs".
func (j *Journal) Leave() { j.f.Close() }

// Pending is a mark a dead bwrun left: its scan did not finish.
type Pending struct {
	// Path is the mark's file; Invocation its content, the invocation
	// that bwrun ran.
	Path       string
	Invocation []byte
	f          *os.File
}

// Done removes the mark once its scan has been finished.
func (p *Pending) Done() error {
	err := os.Remove(p.Path)
	p.f.Close()
	return err
}

// Release gives the mark up (locked no more, left in place).
func (p *Pending) Release() { p.f.Close() }

// FindPending returns the marks beside the invocation at invPath whose
// bwrun is dead (the lock is free), each locked by the caller until
// Done or Release. A mark whose bwrun still runs is skipped. A mark that
// is not the caller's own file is an error: fail closed.
func FindPending(invPath string) ([]*Pending, error) {
	dir, base := filepath.Split(invPath)
	if dir == "" {
		dir = "."
	}
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, err
	}
	var out []*Pending
	for _, n := range names {
		if !strings.HasPrefix(n, base+PendingInfix) {
			continue
		}
		p := filepath.Join(dir, n)
		fd, err := unix.Open(p, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
		if errors.Is(err, unix.ENOENT) {
			continue // finished meanwhile
		}
		if err != nil {
			return releaseAll(out, fmt.Errorf("scan journal %s: %v", p, err))
		}
		f := os.NewFile(uintptr(fd), p)
		if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, unix.EWOULDBLOCK) {
				continue // its bwrun still runs
			}
			return releaseAll(out, fmt.Errorf("scan journal %s: %v", p, err))
		}
		if err := checkOwn(fd, p); err != nil {
			f.Close()
			return releaseAll(out, fmt.Errorf("scan journal: %v", err))
		}
		var st unix.Stat_t
		if unix.Fstat(fd, &st) != nil || st.Nlink == 0 {
			f.Close()
			continue // removed by its finishing bwrun between open and lock
		}
		b, err := readAllFD(f)
		if err != nil {
			f.Close()
			return releaseAll(out, fmt.Errorf("scan journal %s: %v", p, err))
		}
		out = append(out, &Pending{Path: p, Invocation: b, f: f})
	}
	return out, nil
}

func releaseAll(ps []*Pending, err error) ([]*Pending, error) {
	for _, p := range ps {
		p.Release()
	}
	return nil, err
}

// maxJournal bounds a journal read back.
const maxJournal = 64 << 20

func readAllFD(f *os.File) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(f, maxJournal+1))
	if err == nil && len(b) > maxJournal {
		err = errors.New("larger than " + strconv.Itoa(maxJournal) + " bytes")
	}
	return b, err
}
