package runtime

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"golang.org/x/sys/unix"
)

// TestListedKindsMatchLstat holds the listing shortcut of
// CheckPreconditions equal to lstat of each path: every kind a listing
// reports is the kind lstat reports, over directories of every sort of
// entry, absent names, duplicates, an absent parent, a parent that is a
// file, one reached through a symbolic link and one that cannot be read.
func TestListedKindsMatchLstat(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	mkdirs(t, home, filepath.Join(root, "real"), filepath.Join(root, "locked"))
	var pre []invocation.Precondition
	add := func(p, kind string) { pre = append(pre, invocation.Precondition{Path: p, Kind: kind, Why: "H10"}) }
	for i := range 30 {
		d := filepath.Join(home, fmt.Sprintf("d%02d", i))
		mkdirs(t, d)
		add(d, invocation.KindDir)
		f := filepath.Join(home, fmt.Sprintf(".f%02d", i))
		writeFile(t, f)
		add(f, invocation.KindFile)
	}
	os.Symlink("d00", filepath.Join(home, "link"))
	pre = append(pre, invocation.Precondition{Path: filepath.Join(home, "link"), Kind: invocation.KindSymlink, Target: "d00", Why: "H10"})
	unix.Mkfifo(filepath.Join(home, "fifo"), 0o600)
	add(filepath.Join(home, "fifo"), invocation.KindOther)
	if l, err := net.Listen("unix", filepath.Join(home, "sock")); err == nil {
		defer l.Close()
		add(filepath.Join(home, "sock"), invocation.KindSocket)
	}
	add(filepath.Join(home, "d03"), invocation.KindFile)        // changed kind: a mismatch to report
	add(filepath.Join(home, "d04"), invocation.KindDir)         // the same path twice
	add(filepath.Join(home, "gone"), invocation.KindAbsent)     // absent, as recorded
	add(filepath.Join(home, "appeared"), invocation.KindAbsent) // present now
	writeFile(t, filepath.Join(home, "appeared"))
	add(filepath.Join(home, "vanished"), invocation.KindDir) // recorded present, absent now
	for i := range 9 {
		add(filepath.Join(root, "nosuch", fmt.Sprint(i)), invocation.KindAbsent) // absent parent
		add(filepath.Join(home, ".f00", fmt.Sprint(i)), invocation.KindAbsent)   // parent is a file
		writeFile(t, filepath.Join(root, "real", fmt.Sprint(i)))                 //
		add(filepath.Join(root, "via", fmt.Sprint(i)), invocation.KindFile)      // parent through a link
		writeFile(t, filepath.Join(root, "locked", fmt.Sprint(i)))               //
		add(filepath.Join(root, "locked", fmt.Sprint(i)), invocation.KindFile)   // parent not readable
	}
	os.Symlink("real", filepath.Join(root, "via"))
	os.Chmod(filepath.Join(root, "locked"), 0o311)
	defer os.Chmod(filepath.Join(root, "locked"), 0o755)

	var buf []byte
	listed := listedKinds(pre, &buf, nil)
	if listed == nil {
		t.Fatal("no directory was listed")
	}
	n := 0
	for i, p := range pre {
		want, _, _, err := lstatKind(p.Path)
		if listed[i] == "" {
			continue
		}
		n++
		if err != nil || listed[i] != want {
			t.Errorf("%s: listing says %q, lstat %q (%v)", p.Path, listed[i], want, err)
		}
	}
	if n < 60 {
		t.Errorf("only %d of %d preconditions were told by a listing", n, len(pre))
	}
	err := CheckPreconditions(&invocation.Invocation{Preconditions: pre})
	stale, ok := err.(*StaleError)
	if !ok {
		t.Fatalf("CheckPreconditions = %v, want the three mismatches", err)
	}
	got := map[string]bool{}
	for _, m := range stale.Mismatches {
		got[filepath.Base(m.Precondition.Path)] = true
	}
	for _, name := range []string{"d03", "appeared", "vanished"} {
		if !got[name] {
			t.Errorf("mismatch of %s not reported; got %v", name, stale.Mismatches)
		}
	}
	if len(stale.Mismatches) != 3 {
		t.Errorf("got %d mismatches, want 3: %v", len(stale.Mismatches), stale)
	}
}

func mkdirs(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func writeFile(t *testing.T, p string) {
	t.Helper()
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}
