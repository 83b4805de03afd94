package runtime

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

func TestPreconditions(t *testing.T) {
	dir := t.TempDir()
	later := filepath.Join(dir, "appears-later")
	file := filepath.Join(dir, "file")
	link := filepath.Join(dir, "link")
	under := filepath.Join(file, "child") // parent is a file: ENOTDIR
	sock := filepath.Join(dir, "sock")
	os.WriteFile(file, nil, 0o644)
	os.Symlink("/srv/one", link)
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()

	inv := &invocation.Invocation{Preconditions: []invocation.Precondition{
		{Path: later, Kind: invocation.KindAbsent, Why: "S5"},
		{Path: file, Kind: invocation.KindFile, Why: "S5"},
		{Path: link, Kind: invocation.KindSymlink, Target: "/srv/one", Why: "S5"},
		{Path: under, Kind: invocation.KindAbsent, Why: "S5"},
		{Path: sock, Kind: invocation.KindSocket, Why: "S4"},
		{Path: dir, Kind: invocation.KindDir, Why: "S9"},
		{Path: "/dev/null", Kind: invocation.KindOther, Why: "test"},
	}}
	if err := CheckPreconditions(inv); err != nil {
		t.Fatalf("fresh host: %v", err)
	}

	// An absent hidden path that appears later must stop the run.
	os.Mkdir(later, 0o755)
	err = CheckPreconditions(inv)
	var stale *StaleError
	if !errors.As(err, &stale) || len(stale.Mismatches) != 1 {
		t.Fatalf("want one mismatch, got %v", err)
	}
	msg := err.Error()
	for _, want := range []string{later, "was absent when compiled", "is now a directory", "(S5)", "recompile with `bwpolicy compile`"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}

	// A retargeted symlink too.
	os.Remove(later)
	os.Remove(link)
	os.Symlink("/srv/two", link)
	err = CheckPreconditions(inv)
	if err == nil || !strings.Contains(err.Error(), link) || !strings.Contains(err.Error(), `"/srv/one"`) || !strings.Contains(err.Error(), `"/srv/two"`) {
		t.Fatalf("retargeted symlink: %v", err)
	}

	// A symlink replaced by a directory, and a file replaced by a symlink.
	os.Remove(link)
	os.Mkdir(link, 0o755)
	os.Remove(file)
	os.Symlink("/etc/passwd", file)
	err = CheckPreconditions(inv)
	if !errors.As(err, &stale) || len(stale.Mismatches) != 2 { // file and link; under is still absent (ENOTDIR)
		t.Fatalf("want 2 mismatches, got %v", err)
	}
	if !strings.Contains(err.Error(), "was a regular file when compiled, is now a symlink to \"/etc/passwd\"") {
		t.Fatalf("message: %v", err)
	}
}

func TestPreconditionMTime(t *testing.T) {
	proj := t.TempDir()
	os.WriteFile(filepath.Join(proj, "server.pem"), []byte("key"), 0o600)
	os.Mkdir(filepath.Join(proj, "src"), 0o755)
	stamp := func(p string) int64 {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.ModTime().UnixNano()
	}
	inv := func(newDirs bool) *invocation.Invocation {
		return &invocation.Invocation{Preconditions: []invocation.Precondition{
			{Path: proj, Kind: invocation.KindDir, MTime: stamp(proj), Match: []string{"*.pem", ".env*"}, NewDirs: newDirs, Why: "H4"},
			{Path: filepath.Join(proj, "server.pem"), Kind: invocation.KindFile, Why: "H4"},
			{Path: filepath.Join(proj, "src"), Kind: invocation.KindDir, MTime: stamp(filepath.Join(proj, "src")), Match: []string{"*.pem"}, NewDirs: newDirs, Why: "H4"},
		}}
	}
	withDirs, withoutDirs := inv(true), inv(false)
	if err := CheckPreconditions(withDirs); err != nil {
		t.Fatalf("unchanged: %v", err)
	}
	time.Sleep(10 * time.Millisecond)

	// The command's own build output: fine.
	os.WriteFile(filepath.Join(proj, "main.o"), nil, 0o644)
	os.WriteFile(filepath.Join(proj, "src", "app"), nil, 0o644)
	if err := CheckPreconditions(withDirs); err != nil {
		t.Fatalf("a new ordinary file made it stale: %v", err)
	}
	// A new directory of build output: fine, even where a "**" glob would
	// descend, as long as nothing in it matches.
	os.MkdirAll(filepath.Join(proj, "build", "obj"), 0o755)
	os.WriteFile(filepath.Join(proj, "build", "obj", "a.o"), nil, 0o644)
	if err := CheckPreconditions(withoutDirs); err != nil {
		t.Fatalf("new dir without new_dirs: %v", err)
	}
	if err := CheckPreconditions(withDirs); err != nil {
		t.Fatalf("new dir without a match: %v", err)
	}
	// A match deep in a new directory: stale where "**" would find it.
	deep := filepath.Join(proj, "build", "obj", "leaked.pem")
	os.WriteFile(deep, nil, 0o600)
	if err := CheckPreconditions(withoutDirs); err != nil {
		t.Fatalf("new dir without new_dirs: %v", err)
	}
	err := CheckPreconditions(withDirs)
	if err == nil || !strings.Contains(err.Error(), deep) {
		t.Fatalf("new match in a new dir with new_dirs: %v", err)
	}
	// A new directory too large to search: stale.
	os.Remove(deep)
	for i := 0; i <= maxNewDirEntries; i++ {
		os.WriteFile(filepath.Join(proj, "build", fmt.Sprintf("f%d", i)), nil, 0o644)
	}
	err = CheckPreconditions(withDirs)
	if err == nil || !strings.Contains(err.Error(), `new directory "build" is too large`) {
		t.Fatalf("huge new dir: %v", err)
	}
	os.RemoveAll(filepath.Join(proj, "build"))
	// A new match: stale, naming the entry and the glob.
	os.WriteFile(filepath.Join(proj, "src", "new.pem"), nil, 0o600)
	err = CheckPreconditions(withoutDirs)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(proj, "src")) || !strings.Contains(err.Error(), `new entry "new.pem" matches hide glob "*.pem"`) {
		t.Fatalf("new match: %v", err)
	}
	// A directory whose mtime is unchanged is not listed at all.
	unchanged := &invocation.Invocation{Preconditions: []invocation.Precondition{{Path: filepath.Join(proj, "src"), Kind: invocation.KindDir, MTime: stamp(filepath.Join(proj, "src")), Match: []string{"*.pem"}}}}
	if err := CheckPreconditions(unchanged); err != nil {
		t.Fatalf("unchanged mtime: %v", err)
	}
}

func TestKindOfUnreadable(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root reads everything")
	}
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "closed"), 0o000)
	defer os.Chmod(filepath.Join(dir, "closed"), 0o755)
	inv := &invocation.Invocation{Preconditions: []invocation.Precondition{{Path: filepath.Join(dir, "closed", "x"), Kind: invocation.KindAbsent}}}
	err := CheckPreconditions(inv)
	if err == nil || !strings.Contains(err.Error(), "cannot check it now") {
		t.Fatalf("got %v", err)
	}
}

func TestCheckBwrap(t *testing.T) {
	err := CheckBwrap(&invocation.Invocation{Bwrap: invocation.Bwrap{Path: "/nonexistent/bwrap"}})
	if err == nil || !strings.Contains(err.Error(), "apt install bubblewrap") || !strings.Contains(err.Error(), "dnf install bubblewrap") || !strings.Contains(err.Error(), "pacman -S bubblewrap") {
		t.Fatalf("missing bwrap: %v", err)
	}
	err = CheckBwrap(&invocation.Invocation{Bwrap: invocation.Bwrap{Path: "/etc/passwd"}})
	if err == nil || (os.Getuid() != 0 && !strings.Contains(err.Error(), "not executable")) {
		t.Fatalf("non-executable: %v", err)
	}
	if err := CheckBwrap(&invocation.Invocation{Bwrap: invocation.Bwrap{Path: "/"}}); err == nil {
		t.Fatal("a directory passed")
	}
}

func TestBwrapLines(t *testing.T) {
	out := []byte("hello\nbwrap: Can't find source path /x: No such file or directory\n<3>bwrap: second\nnot bwrap: x\n")
	got := bwrapLines(out)
	want := []string{"bwrap: Can't find source path /x: No such file or directory", "bwrap: second"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q", got)
	}
	if !endsWithBwrapLine([]byte("x\nbwrap: y\n")) || endsWithBwrapLine([]byte("bwrap: y\nx\n")) {
		t.Fatal("endsWithBwrapLine")
	}
	var tb tailBuffer
	for i := 0; i < 5000; i++ {
		tb.Write([]byte("0123456789"))
	}
	tb.Write([]byte("bwrap: end\n"))
	if b := tb.Bytes(); len(b) != tailSize || !strings.HasSuffix(string(b), "bwrap: end\n") {
		t.Fatalf("tail: %d bytes", len(b))
	}
}

// TestDependencies asserts the per-command path stays tiny: package
// runtime (with the hazard knowledge it imports) and its host probes
// use the standard library and golang.org/x/sys only, and the
// invocation format the standard library alone.
func TestDependencies(t *testing.T) {
	assertStdlibAndXSys(t, "github.com/bwpolicy/bwpolicy/runtime")
	assertStdlibAndXSys(t, "github.com/bwpolicy/bwpolicy/runtime/hostprobe")
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "github.com/bwpolicy/bwpolicy/runtime/invocation").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	if deps := strings.Fields(string(out)); len(deps) != 1 {
		t.Errorf("runtime/invocation depends on %v: only the standard library is allowed", deps)
	}
}

func assertStdlibAndXSys(t *testing.T, pkg string) {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not in PATH")
	}
	out, err := exec.Command(goBin, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	for _, dep := range strings.Fields(string(out)) {
		switch {
		case dep == pkg, strings.HasPrefix(dep+"/", "github.com/bwpolicy/bwpolicy/runtime/"), strings.HasPrefix(dep, "github.com/bwpolicy/bwpolicy/hazard/"):
			// Ours; -deps lists what they import in turn.
		case strings.HasPrefix(dep, "golang.org/x/sys/"):
		default:
			t.Errorf("%s depends on %s: only the standard library and golang.org/x/sys are allowed", pkg, dep)
		}
	}
}
