// Package asuser runs one test of the calling test binary as another
// user, for tests of what a user cannot do (a directory that denies
// search) that a suite run as root cannot see as itself: root is never
// denied anything.
package asuser

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Nobody is the uid and gid the helpers run as: the overflow ID, which
// owns nothing the tests rely on.
const Nobody = 65534

// envName is set in the child to the name of the helper test it runs.
const envName = "BWPOLICY_ASUSER_TEST"

// Helper reports whether this process is the child that runs the helper
// test name; a helper test returns at once when it is not.
func Helper(name string) bool { return os.Getenv(envName) == name }

// NeedRoot ends t unless the process is root, which is needed to make a
// directory another user owns and to run a test as that user.
func NeedRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: makes directories owned by another user and runs the check as that user (the suite's root run covers it)")
	}
}

// Run runs the test named name of this test binary as Nobody, with env
// (NAME=value) added, and returns the lines it printed that start with
// "asuser: " (without that prefix). It fails t unless the child passed.
func Run(t testing.TB, name string, env ...string) []string {
	t.Helper()
	NeedRoot(t)
	dir, err := os.MkdirTemp("", "asuser-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := filepath.Join(dir, "test")
	if err := copyFile(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^"+name+"$", "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), envName+"="+name), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: Nobody, Gid: Nobody}}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s as uid %d: %v\n%s", name, Nobody, err, out.String())
	}
	var lines []string
	for _, l := range strings.Split(out.String(), "\n") {
		if i := strings.Index(l, "asuser: "); i >= 0 {
			lines = append(lines, l[i+len("asuser: "):])
		}
	}
	return lines
}

// Print writes one line for Run's caller.
func Print(line string) { os.Stdout.WriteString("asuser: " + line + "\n") }

// Tree makes, under a new directory every user can search, three
// directories each holding a file "cred": "foreign" (root's, 0700:
// denies Nobody search), "own" (Nobody's, 0000: denies its owner too,
// who can chmod it) and "open" (0755). It returns the directory.
func Tree(t testing.TB) string {
	t.Helper()
	NeedRoot(t)
	base, err := os.MkdirTemp("", "asuser-tree-") // t.TempDir's parent is 0700
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []struct {
		name string
		mode os.FileMode
		uid  int
	}{{"foreign", 0o700, 0}, {"own", 0, Nobody}, {"open", 0o755, 0}} {
		p := filepath.Join(base, d.name)
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "cred"), []byte("secret\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, d.uid, d.uid); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, d.mode); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(base, "own"), 0o755) }) // runs before RemoveAll
	return base
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
