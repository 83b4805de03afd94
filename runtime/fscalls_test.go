package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// The per-command path does no directory walking: what bwrun does to the
// file system before it starts bwrap grows with the number of recorded
// preconditions only (at most an lstat each, a readlink for a symlink).
// A directory is listed only when it is the parent of at least minListed
// preconditions (one listing tells their kinds instead of an lstat each)
// or when a hide glob recorded it and its modification time changed —
// that one directory, not a tree.
//
// The count comes from strace(1) on a helper process (this test binary
// again) that runs Load and Run on an invocation with N preconditions.
// Run is stopped just before it forks bwrap by a signal already pending
// on Stdio.Signals (Run checks it after the preconditions, the
// environment and the descriptors are ready, and returns 128+signal
// without starting bwrap), so everything Run does per command up to the
// fork is counted, and nothing of bwrap's. Two lstat()s of marker paths
// bracket the part counted. No timing is asserted.

const (
	fscallsEnv    = "BWPOLICY_FSCALLS_INVOCATION"
	fscallsBegin  = "/.bwpolicy-fscalls-begin"
	fscallsEnd    = "/.bwpolicy-fscalls-end"
	fscallsSignal = syscall.SIGTERM
)

// TestFSCallsHelper is the traced process; it does nothing unless run by
// TestFSCalls.
func TestFSCallsHelper(t *testing.T) {
	invPath := os.Getenv(fscallsEnv)
	if invPath == "" {
		t.Skip("helper process for TestFSCalls")
	}
	sigc := make(chan os.Signal, 1)
	sigc <- fscallsSignal
	os.Lstat(fscallsBegin)
	inv, err := LoadTrusted(invPath)
	if err != nil {
		t.Fatal(err)
	}
	code, err := Run(context.Background(), inv, []string{"/bin/true"}, Stdio{Signals: sigc, Warn: func(string) {}})
	os.Lstat(fscallsEnd)
	if code != 128+int(fscallsSignal) || err != nil {
		// Run no longer stops at a pending signal before forking (or the
		// invocation was refused): the count below would be wrong.
		t.Fatalf("Run returned %d, %v; want %d, nil (a pending signal stops it before bwrap starts)", code, err, 128+int(fscallsSignal))
	}
}

// fscallsFixture makes n preconditions of every kind under a new
// directory: absent, file, directory, symlink, and a directory a hide
// glob recorded (with its mtime and a pattern). It returns the
// invocation's path (outside the fixture) and the fixture's root.
func fscallsFixture(t testing.TB, n int, newDirs bool) (invPath, root string, globDirs []string) {
	t.Helper()
	root = t.TempDir()
	var pre []invocation.Precondition
	for i := 0; i < n; i++ {
		p := filepath.Join(root, fmt.Sprintf("p%d", i))
		switch i % 5 {
		case 0:
			pre = append(pre, invocation.Precondition{Path: p, Kind: invocation.KindAbsent, Why: "S5"})
		case 1:
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			pre = append(pre, invocation.Precondition{Path: p, Kind: invocation.KindFile, Why: "S5"})
		case 2:
			if err := os.Mkdir(p, 0o700); err != nil {
				t.Fatal(err)
			}
			pre = append(pre, invocation.Precondition{Path: p, Kind: invocation.KindDir, Why: "S5"})
		case 3:
			if err := os.Symlink(fmt.Sprintf("target%d", i), p); err != nil {
				t.Fatal(err)
			}
			pre = append(pre, invocation.Precondition{Path: p, Kind: invocation.KindSymlink, Target: fmt.Sprintf("target%d", i), Why: "S5"})
		case 4:
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(p, "main.go"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Lstat(p)
			if err != nil {
				t.Fatal(err)
			}
			pre = append(pre, invocation.Precondition{Path: p, Kind: invocation.KindDir, MTime: fi.ModTime().UnixNano(), Match: []string{"*.pem"}, NewDirs: newDirs, Why: "H4"})
			globDirs = append(globDirs, p)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	inv := &invocation.Invocation{
		Format:  invocation.Format,
		Profile: "fscalls",
		Bwrap: invocation.Bwrap{Path: self, Args: []string{"--unshare-all", "--unshare-user", "--die-with-parent", "--new-session",
			"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--ro-bind", "/dev/null", "/proc/1/mem", "--ro-bind", "/dev/null", "/proc/1/task/1/mem", "--ro-bind-data", "3", "/nonexistent-mask",
			"--info-fd", "4", "--block-fd", "5", "--json-status-fd", "6", "--seccomp", "7"}},
		FDs:           []invocation.FD{{Num: 3, Kind: invocation.FDEmpty}, {Num: 4, Kind: invocation.FDInfo}, {Num: 5, Kind: invocation.FDBlock}, {Num: 6, Kind: invocation.FDStatus}, {Num: 7, Kind: invocation.FDSeccomp}},
		Rlimits:       invocation.Rlimits{AsBytes: 1 << 30, CPUSeconds: 30},
		Env:           invocation.Env{Unset: []string{"SSH_AUTH_SOCK"}, Set: map[string]string{"TMPDIR": "/tmp"}},
		Chdir:         "/",
		Preconditions: pre,
		Seccomp:       &invocation.Seccomp{Arch: machine(), Program: make([]byte, 8)},
	}
	setIdentity(t, inv)
	if err := invocation.Validate(inv); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(inv)
	if err != nil {
		t.Fatal(err)
	}
	invPath = filepath.Join(t.TempDir(), "inv.json")
	if err := os.WriteFile(invPath, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return invPath, root, globDirs
}

// fscallsTrace is what the helper did between the markers.
type fscallsTrace struct {
	calls    map[string]int // syscall name -> count
	opened   []string       // paths opened under the fixture root
	forked   []string       // process-creating calls (should be none)
	pathRefs int            // path-based file system calls
}

// pathCalls are the syscalls that look a path up.
var pathCalls = map[string]bool{
	"newfstatat": true, "fstatat64": true, "lstat": true, "stat": true, "statx": true,
	"readlinkat": true, "readlink": true, "openat": true, "openat2": true, "open": true,
	"faccessat": true, "faccessat2": true, "access": true,
}

var straceLine = regexp.MustCompile(`^(?:\[pid\s+)?\d+\]?\s+([a-z0-9_]+)\((.*)$`)

func fscallsRun(t *testing.T, strace, invPath, root string) fscallsTrace {
	t.Helper()
	out := filepath.Join(t.TempDir(), "strace.out")
	cmd := exec.Command(strace, "-f", "-qq", "-o", out,
		"-e", "trace=%file,getdents64,getdents,clone,clone3,fork,vfork,execve,execveat",
		os.Args[0], "-test.run=^TestFSCallsHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), fscallsEnv+"="+invPath)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("strace helper: %v\n%s", err, b)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	tr := fscallsTrace{calls: map[string]int{}}
	in := false
	sawEnd := false
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.Contains(line, fscallsBegin) {
			in = true
			continue
		}
		if strings.Contains(line, fscallsEnd) {
			sawEnd = true
			break
		}
		if !in {
			continue
		}
		m := straceLine.FindStringSubmatch(line)
		if m == nil {
			continue // "<... resumed>" halves, exit lines
		}
		name, rest := m[1], m[2]
		tr.calls[name]++
		if pathCalls[name] {
			tr.pathRefs++
		}
		switch name {
		case "clone", "clone3":
			if !strings.Contains(rest, "CLONE_THREAD") {
				tr.forked = append(tr.forked, line)
			}
		case "fork", "vfork", "execve", "execveat":
			tr.forked = append(tr.forked, line)
		case "openat", "open", "openat2":
			if i := strings.Index(rest, `"`+root); i >= 0 {
				p := rest[i+1:]
				tr.opened = append(tr.opened, p[:strings.IndexByte(p, '"')])
			}
		}
	}
	if !in || !sawEnd {
		t.Fatalf("markers not found in the trace (in=%v end=%v):\n%s", in, sawEnd, raw)
	}
	if len(tr.forked) > 0 {
		t.Fatalf("a process was created between the markers (Run no longer stops before forking bwrap at a pending signal?):\n%s", strings.Join(tr.forked, "\n"))
	}
	return tr
}

func fscallsStrace(t *testing.T) string {
	t.Helper()
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace not installed (apt-get install strace): the file system call guard cannot run")
	}
	if b, err := exec.Command(strace, "-f", "-qq", "-o", os.DevNull, "true").CombinedOutput(); err != nil {
		t.Skipf("strace cannot trace here: %v %s", err, b)
	}
	return strace
}

// TestFSCalls: the file system calls bwrun makes before starting bwrap
// grow linearly with the preconditions (at most two each), and while no
// recorded mtime changed the only directory listed is the fixture's
// root, the parent of every precondition, once.
func TestFSCalls(t *testing.T) {
	if os.Getenv(fscallsEnv) != "" {
		t.Skip("inside the helper")
	}
	strace := fscallsStrace(t)
	base := -1
	for _, n := range []int{0, 50, 500} {
		invPath, root, _ := fscallsFixture(t, n, true)
		tr := fscallsRun(t, strace, invPath, root)
		t.Logf("N=%d preconditions: %d path lookups, %v", n, tr.pathRefs, tr.calls)
		if n == 0 {
			base = tr.pathRefs
		}
		d := tr.calls["getdents64"] + tr.calls["getdents"]
		// One listing: a buffer of direntBufSize holds ~200 entries.
		if maxCalls := 2 + n/100; d > maxCalls || (n >= minListed && d == 0) {
			t.Errorf("N=%d: %d getdents calls with no mtime changed, want 1 to %d (one listing of the parent)", n, d, maxCalls)
		}
		wantOpened := "[]"
		if n >= minListed {
			wantOpened = fmt.Sprint([]string{root})
		}
		if fmt.Sprint(tr.opened) != wantOpened {
			t.Errorf("N=%d: opened %v under the fixture, want %s", n, tr.opened, wantOpened)
		}
		extra := tr.pathRefs - base
		// Each precondition costs at most two calls (lstat, then readlink
		// for a symlink); the listing replaces the lstat of the others.
		if extra > 2*n {
			t.Errorf("N=%d: %d path lookups more than with none, want at most 2N", n, extra)
		}
	}
}

// TestFSCallsChangedMTime: when a recorded directory's mtime changed,
// that one directory is listed (no walk); a new subdirectory is searched
// only when the glob has "**" (NewDirs).
func TestFSCallsChangedMTime(t *testing.T) {
	if os.Getenv(fscallsEnv) != "" {
		t.Skip("inside the helper")
	}
	strace := fscallsStrace(t)
	for _, newDirs := range []bool{false, true} {
		invPath, root, globDirs := fscallsFixture(t, 50, newDirs)
		changed := globDirs[3]
		time.Sleep(10 * time.Millisecond) // a coarse-grained mtime must move
		// Build output: a new file and a new directory, nothing matching.
		if err := os.WriteFile(filepath.Join(changed, "main.o"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(changed, "build", "obj"), 0o755); err != nil {
			t.Fatal(err)
		}
		tr := fscallsRun(t, strace, invPath, root)
		t.Logf("new_dirs=%v: opened %v, %v", newDirs, tr.opened, tr.calls)
		want := []string{root, changed} // root: the listing of the preconditions' parent
		if newDirs {
			want = append(want, filepath.Join(changed, "build"), filepath.Join(changed, "build", "obj"))
		}
		if fmt.Sprint(tr.opened) != fmt.Sprint(want) {
			t.Errorf("new_dirs=%v: opened %v, want %v (the preconditions' parent, the changed directory, and the new directories under it where a \"**\" glob would look)", newDirs, tr.opened, want)
		}
		if tr.calls["getdents64"]+tr.calls["getdents"] == 0 {
			t.Errorf("new_dirs=%v: the changed directory was not listed", newDirs)
		}
	}
}
