package watch

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func mkdirs(t *testing.T, ps ...string) {
	t.Helper()
	for _, p := range ps {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// watchedTree watches root as a watcher does, every directory but
// ".git" ones entered.
func watchedTree(t *testing.T, root string) *tree {
	t.Helper()
	tr, err := newTree(func(p string) bool { return filepath.Base(p) != ".git" })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeFD(tr.fd) })
	if err := tr.addRoot(root); err != nil {
		t.Fatal(err)
	}
	return tr
}

// The dirty set after changes: a deep file written marks its directory;
// mkdir -p marks the first new directory as a whole (Tree) and places
// watches below it, so that a later change deep in it is reported; a
// directory renamed in from a place not watched (inside .git) is a Tree;
// one deleted is a Tree (forgotten). Control: nothing changed, nothing
// dirty.
func TestTreeDirty(t *testing.T) {
	root := t.TempDir()
	mkdirs(t, root+"/a/b/c", root+"/r/.git/stash/x")
	tr := watchedTree(t, root)
	tr.drain()
	n0, set := tr.gens.cut(0)
	if len(set) != 0 {
		t.Fatalf("control: nothing changed, gen %d dirty %v", n0, set)
	}
	os.WriteFile(root+"/a/b/c/f", []byte("x"), 0o644)
	mkdirs(t, root+"/n1/n2/n3")
	tr.drain()
	os.WriteFile(root+"/n1/n2/n3/g", nil, 0o644) // watched now: n3 is reported
	os.Rename(root+"/r/.git/stash", root+"/t")
	os.Remove(root + "/a/b/c/f")
	os.Remove(root + "/a/b/c")
	tr.drain()
	if tr.broken != "" {
		t.Fatal(tr.broken)
	}
	_, set = tr.gens.cut(n0)
	want := map[string]Kind{root + "/a/b/c": Tree, root + "/a/b": Self, root + "/n1": Tree, root + "/n1/n2/n3": Self, root + "/t": Tree, root: Self}
	for d, k := range want {
		if set[d] != k {
			t.Errorf("%s: %q, want %q (set %v)", d, set[d], k, set)
		}
	}
	if tr.nodes[root+"/t/x"] == nil || tr.nodes[root+"/n1/n2/n3"] == nil {
		t.Errorf("no watch below a directory moved in or created: %v", tr.nodes)
	}
	if tr.nodes[root+"/a/b/c"] != nil {
		t.Errorf("a deleted directory is still watched")
	}
	if tr.nodes[root+"/r/.git"] != nil {
		t.Errorf("a .git directory is watched")
	}
}

// A queue overflow breaks the watcher: it cannot answer any more.
// Control: the same changes drained as they come leave it whole.
func TestTreeOverflow(t *testing.T) {
	root := t.TempDir()
	limit := 16384
	if b, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events"); err == nil {
		fmt.Sscan(string(b), &limit)
	}
	for _, control := range []bool{true, false} {
		d := filepath.Join(root, fmt.Sprint(control))
		mkdirs(t, d)
		tr := watchedTree(t, d)
		for i := 0; i < limit/2+100; i++ { // two events a file: create, close-write
			f, err := os.Create(fmt.Sprintf("%s/f%d", d, i))
			if err != nil {
				t.Fatal(err)
			}
			f.Close()
			if control && i%1000 == 0 {
				tr.drain()
			}
		}
		tr.drain()
		if control && tr.broken != "" {
			t.Errorf("control: drained as they came: %s", tr.broken)
		}
		if !control && !strings.Contains(tr.broken, "overflow") {
			t.Errorf("after %d files undrained: broken %q, want an overflow", limit/2+100, tr.broken)
		}
	}
}

// The two phases: a cut's dirty set stays until it is acknowledged, so a
// caller that asked and died before acknowledging gets it again; after
// the acknowledgement it is gone, and a generation before it is no
// longer known (a whole scan).
func TestGenerations(t *testing.T) {
	g := newGenerations()
	g.open.Mark("/a", Self)
	n1, s1 := g.cut(0)
	if len(s1) != 1 {
		t.Fatalf("cut 1: %v", s1)
	}
	g.open.Mark("/b", Self)
	n2, s2 := g.cut(0) // the caller of n1 died: it asks since 0 again
	if s2["/a"] != Self || s2["/b"] != Self {
		t.Errorf("since 0 after a cut not acknowledged: %v", s2)
	}
	if !g.ack(n2) || g.known(n1) || !g.known(n2) {
		t.Errorf("after ack %d: known(%d)=%v known(%d)=%v", n2, n1, g.known(n1), n2, g.known(n2))
	}
	g.open.Mark("/c", Tree)
	g.open.Mark("/c", Self)
	if _, s := g.cut(n2); len(s) != 1 || s["/c"] != Tree {
		t.Errorf("since %d: %v", n2, s)
	}
	if g.ack(99) {
		t.Errorf("a generation never cut acknowledged")
	}
}

// Serve and its clients, in this process (same uid, same pid
// namespace: the peer check lets them in): a first request (no token)
// is answered Full; a change after it is answered to the next request
// with the token and generation; an unacknowledged generation is
// answered again; another invocation's request is answered "no" and
// the watcher exits.
func TestServe(t *testing.T) {
	dir := t.TempDir()
	root := dir + "/w"
	mkdirs(t, root+"/sub")
	r, w, _ := os.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Serve(Config{Roots: []string{root}, Enter: func(string) bool { return true }, Socket: dir + "/s", Lock: dir + "/l",
			InvHash: "h1", Alive: func() bool { return true }, Idle: time.Minute, Ready: w})
	}()
	line, _ := bufio.NewReader(r).ReadString('\n')
	if !strings.HasPrefix(line, "ready ") {
		t.Fatalf("watcher start: %q", line)
	}
	a, err := Since(dir+"/s", "", 0, "h1")
	if err != nil || !a.Full {
		t.Fatalf("first request: %+v %v", a, err)
	}
	if err := Ack(dir+"/s", a.Token, a.Gen); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(root+"/sub/f", nil, 0o644)
	b, err := Since(dir+"/s", a.Token, a.Gen, "h1")
	if err != nil || b.Full || b.Dirty[root+"/sub"] != Self {
		t.Fatalf("after a change: %+v %v", b, err)
	}
	c, err := Since(dir+"/s", a.Token, a.Gen, "h1") // b not acknowledged
	if err != nil || c.Dirty[root+"/sub"] != Self {
		t.Fatalf("asked again since %d: %+v %v", a.Gen, c, err)
	}
	if _, err := Since(dir+"/s", a.Token, a.Gen, "h2"); err == nil || !strings.Contains(err.Error(), "invocation changed") {
		t.Fatalf("another invocation: %v", err)
	}
	select {
	case err := <-done:
		t.Logf("watcher ended: %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("the watcher did not exit")
	}
	if _, err := Since(dir+"/s", "", 0, "h1"); err != ErrNoWatcher {
		t.Errorf("after it exited: %v, want ErrNoWatcher", err)
	}
}

// A tree on a filesystem whose changes may not pass through this kernel
// (here procfs; NFS, FUSE alike) fails the watcher's start. Control: a
// temporary directory (a local filesystem) is watched.
func TestTreeLocalOnly(t *testing.T) {
	for _, root := range []string{t.TempDir(), "/proc/sys/fs"} {
		tr, err := newTree(func(string) bool { return false })
		if err != nil {
			t.Fatal(err)
		}
		err = tr.addRoot(root)
		closeFD(tr.fd)
		switch local := !strings.HasPrefix(root, "/proc"); {
		case local && err != nil:
			t.Errorf("control: %s: %v", root, err)
		case !local && (err == nil || !strings.Contains(err.Error(), "filesystem")):
			t.Errorf("%s: %v, want a refusal of its filesystem", root, err)
		}
	}
}

// Asked again about the generation it closed last, with nothing
// changed since, the watcher answers that generation again (bwrun then
// rewrites nothing); the first change after it makes a new one, which
// reports the change to an asker of the old one. Control: an event
// after the cut is never lost to the shortcut.
func TestCutNothingNew(t *testing.T) {
	root := t.TempDir()
	mkdirs(t, root+"/a")
	tr := watchedTree(t, root)
	tr.drain()
	g1, _ := tr.gens.cut(0)
	tr.drain()
	if g2, set := tr.gens.cut(g1); g2 != g1 || len(set) != 0 {
		t.Fatalf("nothing changed since generation %d: got generation %d, dirty %v", g1, g2, set)
	}
	os.WriteFile(root+"/a/f", nil, 0o644)
	tr.drain()
	g3, set := tr.gens.cut(g1)
	if g3 == g1 || set[root+"/a"] != Self {
		t.Fatalf("control: a file written after generation %d: got generation %d, dirty %v", g1, g3, set)
	}
	if !tr.gens.known(g3) {
		t.Fatalf("generation %d just closed is not known", g3)
	}
	if g4, set := tr.gens.cut(g3); g4 != g3 || len(set) != 0 {
		t.Fatalf("nothing changed since generation %d: got %d, dirty %v", g3, g4, set)
	}
	// An asker still at g1 (its scan of g3 was not recorded) is told
	// of the change.
	if _, set := tr.gens.cut(g1); set[root+"/a"] != Self {
		t.Fatalf("asked since %d after the change: dirty %v", g1, set)
	}
}
