package runtime

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// TestRecoverGoneCwd: an invocation whose only stale precondition is its
// deleted working directory runs in the nearest existing parent, without
// any mount at or below the deleted directory (the size of a dropped
// tmpfs goes with it), read-only; everything else stays stale (125).
func TestRecoverGoneCwd(t *testing.T) {
	base := varTempDir(t, "cwdgone-test-")
	p := func(rel string) string { return filepath.Join(base, rel) }
	build := func(cwd string) *invocation.Invocation {
		inv := testInv(t, "--bind", cwd, cwd, "--size", "16384", "--tmpfs", cwd+"/.secrets",
			"--remount-ro", cwd+"/.secrets", "--ro-bind", p("other"), p("other"), "--size", "4096", "--tmpfs", p("mask"),
			"--chdir", cwd)
		inv.Chdir = cwd
		inv.Writable = []string{"/tmp", cwd}
		inv.Hidden = []string{cwd + "/.secrets", p("mask")}
		for _, d := range []string{cwd + "/.secrets", p("other"), p("mask")} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		inv.Preconditions = []invocation.Precondition{
			{Path: filepath.Dir(cwd), Kind: invocation.KindDir, Why: invocation.ReasonPathComponent},
			{Path: cwd, Kind: invocation.KindDir, Why: invocation.ReasonWorkingDirectory},
			{Path: cwd + "/.secrets", Kind: invocation.KindDir, Why: invocation.ReasonUserHidePaths},
			{Path: cwd + "/.git/hooks", Kind: invocation.KindAbsent, Why: invocation.ReasonProtectedEntries},
			{Path: p("other"), Kind: invocation.KindDir, Why: invocation.ReasonBinds},
		}
		return inv
	}
	recoverGone := func(inv *invocation.Invocation) (*invocation.Invocation, string, error) {
		err := CheckPreconditions(inv)
		if err == nil {
			t.Fatal("CheckPreconditions: no mismatch")
		}
		return RecoverGoneCwd(inv, err)
	}

	inv := build(p("proj/work"))
	if err := CheckTrust(inv); err != nil {
		t.Fatalf("the test invocation is no sandbox: %v", err)
	}
	if err := CheckPreconditions(inv); err != nil {
		t.Fatalf("before the deletion: %v", err)
	}
	if err := os.RemoveAll(p("proj/work")); err != nil {
		t.Fatal(err)
	}
	got, note, err := recoverGone(inv)
	if err != nil {
		t.Fatalf("RecoverGoneCwd: %v", err)
	}
	wantArgs := append(append([]string(nil), baseArgs...), "--ro-bind", p("other"), p("other"), "--size", "4096", "--tmpfs", p("mask"),
		"--chdir", p("proj"), "--info-fd", "3", "--block-fd", "4", "--json-status-fd", "5", "--seccomp", "20")
	if !slices.Equal(got.Bwrap.Args, wantArgs) {
		t.Errorf("args:\n got %q\nwant %q", got.Bwrap.Args, wantArgs)
	}
	if got.Chdir != p("proj") || !slices.Equal(got.Hidden, []string{p("mask")}) || !slices.Equal(got.Writable, []string{"/tmp"}) {
		t.Errorf("chdir %s, hidden %q, writable %q", got.Chdir, got.Hidden, got.Writable)
	}
	if !strings.Contains(note, p("proj/work")+" no longer exists") || !strings.Contains(note, "runs in "+p("proj")+" (read-only)") {
		t.Errorf("note %q", note)
	}
	if inv.Chdir != p("proj/work") || !slices.Contains(inv.Bwrap.Args, p("proj/work")) {
		t.Error("RecoverGoneCwd changed the caller's invocation")
	}

	// Two levels gone: the nearest existing parent is base.
	inv = build(p("deep/a/work"))
	if err := os.RemoveAll(p("deep")); err != nil {
		t.Fatal(err)
	}
	if got, _, err := recoverGone(inv); err != nil || got.Chdir != base {
		t.Errorf("two levels gone: %v, chdir %v", err, got)
	}

	stale := func(name string, inv *invocation.Invocation, why string) {
		t.Helper()
		_, _, err := recoverGone(inv)
		var se *StaleError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), why) {
			t.Errorf("%s: got %v, want a stale error containing %q", name, err, why)
		}
	}
	// Another precondition changed too: stale.
	inv = build(p("two/work"))
	os.RemoveAll(p("two/work"))
	os.RemoveAll(p("other"))
	stale("another mismatch", inv, p("other")+" (binds[0]): was a directory")
	os.MkdirAll(p("other"), 0o755)

	// The working directory is a file now, not absent: stale.
	inv = build(p("file/work"))
	os.RemoveAll(p("file/work"))
	os.WriteFile(p("file/work"), nil, 0o644)
	stale("a file in its place", inv, "is now a regular file")

	// The nearest existing parent lies in the sandbox's private /tmp.
	inv = build(p("tmp/work"))
	inv.Bwrap.Args = slices.Insert(inv.Bwrap.Args, len(baseArgs), "--tmpfs", p("tmp"))
	os.RemoveAll(p("tmp/work"))
	stale("parent not shown", inv, "cannot be used instead: it lies in the sandbox's private "+p("tmp"))

	// The nearest existing parent is hidden.
	inv = build(p("hid/work"))
	inv.Bwrap.Args = slices.Insert(inv.Bwrap.Args, len(baseArgs)+3, "--tmpfs", p("hid"))
	inv.Hidden = append(inv.Hidden, p("hid"))
	os.RemoveAll(p("hid/work"))
	stale("parent hidden", inv, "cannot be used instead: the sandbox hides it")

	// Not stale at all, or stale for another reason only: the error is
	// returned as it is.
	plain := errors.New("not stale")
	if _, _, err := RecoverGoneCwd(build(p("x/work")), plain); err != plain {
		t.Errorf("a non-stale error: got %v", err)
	}
}
