package runtime

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"golang.org/x/sys/unix"
)

// RunFlags are the per-run options bwrun and `bwpolicy run` take before
// the invocation (or the command): --status-fd N, --status-file F,
// --timeout SECONDS, --chdir DIR, --expose FILE and --expose-pinned FILE
// (repeatable), --nonce N.
type RunFlags struct {
	// StatusFD is the descriptor the Status goes to (-1: none).
	StatusFD int
	// StatusFile is the file the Status goes to ("" : none); created
	// exclusively, never through a symlink, outside the sandbox's
	// writable set (OpenStatus).
	StatusFile string
	// Nonce is the caller's token for this run, echoed in the Status
	// ("nonce"), so the caller can tell this run's report from any other
	// ("" : none).
	Nonce string
	// Options are Run's options (Timeout, Chdir).
	Options Options
}

// maxExpose bounds how many --expose options one run takes.
const maxExpose = 64

// maxNonce bounds the length of --nonce.
const maxNonce = 128

// RunFlagsUsage documents the options for a --help text.
const RunFlagsUsage = `  --status-fd N      write one JSON object (schema/status.schema.json) saying
                     how the run ended to descriptor N, which the command
                     cannot reach: "outcome" is exited, signaled,
                     setup-failed, stale (recompile, then run again) or timeout
  --status-file F    the same, to a new file F (created exclusively, never
                     through a symlink; refused inside the sandbox's
                     writable directories)
  --timeout SECONDS  kill the whole sandbox after SECONDS of wall-clock time
                     (exit status 124, outcome "timeout")
  --chdir DIR        start the command in DIR instead of the compiled working
                     directory; a directory the sandbox hides falls back to
                     the compiled one (with a note); one outside the writable
                     directories is read-only
  --expose FILE      show FILE, read-only at its path, to this run only: a
                     regular file below a root the invocation declares
                     (Hermes' cache/spillover), reached without a symlink,
                     bound through a descriptor; repeatable
  --expose-pinned FILE
                     show at FILE (a path --expose would accept; the host file
                     itself is not read) the copy the caller pinned for it
                     when it was stored: INVOCATION's directory/exposed/<hex
                     SHA-256 of FILE>, a regular file of this user's, reached
                     without a symlink; a missing copy fails the run;
                     repeatable
  --nonce N          echo N (1-128 of A-Z a-z 0-9 _ -) as "nonce" in the status
                     object, so the caller knows the report is this run's
`

// ParseRunFlags takes the leading per-run options off args and returns
// the rest. Each option takes its value as the next argument or after
// "=". Parsing stops at the first argument that is not one of them.
func ParseRunFlags(args []string) (RunFlags, []string, error) {
	f := RunFlags{StatusFD: -1}
	seen := map[string]bool{}
	for len(args) > 0 {
		name, val, hasVal := strings.Cut(args[0], "=")
		switch name {
		case "--status-fd", "--status-file", "--timeout", "--chdir", "--expose", "--expose-pinned", "--nonce":
		default:
			return f, args, nil
		}
		if seen[name] && name != "--expose" && name != "--expose-pinned" {
			return f, nil, fmt.Errorf("%s given twice", name)
		}
		seen[name] = true
		if hasVal {
			args = args[1:]
		} else if len(args) < 2 {
			return f, nil, fmt.Errorf("%s needs a value", name)
		} else {
			val, args = args[1], args[2:]
		}
		if err := f.Set(name, val); err != nil {
			return f, nil, err
		}
	}
	return f, args, nil
}

// Set sets the option name ("--timeout", ...) to val.
func (f *RunFlags) Set(name, val string) error {
	switch name {
	case "--status-fd":
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 {
			return fmt.Errorf("--status-fd %q: not a descriptor number", val)
		}
		var st unix.Stat_t
		if unix.Fstat(n, &st) != nil {
			return fmt.Errorf("--status-fd %d: not an open descriptor", n)
		}
		// The command writes to 0-2 (and to what they name): never there.
		for std := 0; std <= 2; std++ {
			var s unix.Stat_t
			if std == n || (unix.Fstat(std, &s) == nil && s.Dev == st.Dev && s.Ino == st.Ino) {
				return fmt.Errorf("--status-fd %d: the command's standard stream %d is the same file, so the command could write the status; give a descriptor of its own", n, std)
			}
		}
		// Never handed to bwrap.
		unix.CloseOnExec(n)
		f.StatusFD = n
	case "--status-file":
		if val == "" {
			return errors.New("--status-file: empty path")
		}
		f.StatusFile = val
	case "--timeout":
		s, err := strconv.ParseFloat(val, 64)
		if err != nil || !(s > 0) || s > math.MaxInt32 {
			return fmt.Errorf("--timeout %q: not a number of seconds above 0", val)
		}
		f.Options.Timeout = time.Duration(s * float64(time.Second))
	case "--chdir":
		if !filepath.IsAbs(val) {
			return fmt.Errorf("--chdir %q: not an absolute path", val)
		}
		f.Options.Chdir = val
	case "--expose", "--expose-pinned":
		if !filepath.IsAbs(val) {
			return fmt.Errorf("%s %q: not an absolute path", name, val)
		}
		if len(f.Options.Expose)+len(f.Options.ExposePinned) >= maxExpose {
			return fmt.Errorf("--expose and --expose-pinned given more than %d times", maxExpose)
		}
		if name == "--expose" {
			f.Options.Expose = append(f.Options.Expose, val)
		} else {
			f.Options.ExposePinned = append(f.Options.ExposePinned, val)
		}
	case "--nonce":
		if !validNonce(val) {
			return fmt.Errorf("--nonce: 1 to %d characters of A-Z a-z 0-9 _ - expected", maxNonce)
		}
		f.Nonce = val
	}
	return nil
}

// validNonce reports whether s is 1 to maxNonce characters of
// [A-Za-z0-9_-].
func validNonce(s string) bool {
	if len(s) == 0 || len(s) > maxNonce {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// OpenStatus opens where the Status goes: the --status-fd descriptor, or
// the --status-file, created with O_CREAT|O_EXCL|O_NOFOLLOW (an existing
// file or symlink is refused) and refused when it lies in inv's writable
// set, where a command could have prepared or could read it. It returns
// nil when neither was asked for.
func (f RunFlags) OpenStatus(inv *invocation.Invocation) (*os.File, error) {
	if f.StatusFD >= 0 {
		return os.NewFile(uintptr(f.StatusFD), "status"), nil
	}
	if f.StatusFile == "" {
		return nil, nil
	}
	p, err := filepath.Abs(f.StatusFile)
	if err != nil {
		return nil, fmt.Errorf("--status-file: %w", err)
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(p))
	if err != nil {
		return nil, fmt.Errorf("--status-file: %w", err)
	}
	if inv != nil {
		// Both the path as given and with its directory's symlinks
		// resolved, against each writable directory as recorded and
		// resolved.
		for _, w := range inv.Writable {
			ws := []string{w}
			if real, err := filepath.EvalSymlinks(w); err == nil && real != w {
				ws = append(ws, real)
			}
			for _, cand := range []string{p, filepath.Join(dir, filepath.Base(p))} {
				for _, wp := range ws {
					if invocation.Within(cand, wp) {
						return nil, fmt.Errorf("--status-file %s: inside the sandbox's writable directory %s, where the command could forge it", f.StatusFile, w)
					}
				}
			}
		}
	}
	fd, err := OpenNoSymlinks(p, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("--status-file %s: %w", f.StatusFile, err)
	}
	file := os.NewFile(uintptr(fd), p)
	if inv != nil {
		// The path checks above compare names; the invocation's own
		// location check (checkLocation) compares what the sandbox's
		// read-write binds really are (device and inode), so a writable
		// directory reached under another name (a bind mount, an NFS
		// alias) is refused too, and so is a directory another user could
		// swap the file in.
		var st unix.Stat_t
		err := unix.Fstat(fd, &st)
		if err == nil {
			err = checkLocation(file, "status file "+p, &st, inv)
		}
		if err != nil {
			file.Close()
			os.Remove(p)
			return nil, fmt.Errorf("--status-file: %w", err)
		}
	}
	return file, nil
}
