package facts

import (
	"github.com/bwpolicy/bwpolicy/facts/factstest"

	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/hazard/git"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/settings"
)

// countingFS counts the questions that reach the FS it wraps.
type countingFS struct {
	FS
	calls map[string]int
}

func (c *countingFS) Lstat(p string) Stat { c.calls["lstat "+p]++; return c.FS.Lstat(p) }
func (c *countingFS) ReadDir(p string) ([]string, error) {
	c.calls["readdir "+p]++
	return c.FS.ReadDir(p)
}
func (c *countingFS) ReadFile(p string, max int) ([]byte, error) {
	c.calls["readfile "+p]++
	return c.FS.ReadFile(p, max)
}
func (c *countingFS) ListDir(p string, de *git.DirEntries) error {
	c.calls["listdir "+p]++
	return c.FS.ListDir(p, de)
}

func memoTree() factstest.Tree {
	return factstest.Tree{
		"/home/u/.bashrc":       {Kind: invocation.KindFile, Content: "echo hi\n"},
		"/home/u/.ssh":          {Kind: invocation.KindDir},
		"/home/u/proj/.git":     {Kind: invocation.KindDir},
		"/home/u/link":          {Kind: invocation.KindSymlink, Target: "proj"},
		"/home/u/proj/a/b/file": {Kind: invocation.KindFile},
	}
}

// TestMemoReadsEachPathOnce: a second question about a path is answered
// from memory with the same answer; Forget makes the next one read again.
func TestMemoReadsEachPathOnce(t *testing.T) {
	under := &countingFS{FS: memoTree(), calls: map[string]int{}}
	m := NewMemo(under)
	for round := 0; round < 3; round++ {
		for _, p := range []string{"/home/u/.bashrc", "/home/u/.ssh", "/home/u/link", "/home/u/absent"} {
			if got, want := m.Lstat(p), under.FS.Lstat(p); !reflect.DeepEqual(got, want) {
				t.Errorf("Lstat(%s) = %+v, want %+v", p, got, want)
			}
		}
		names, err := m.ReadDir("/home/u")
		want, _ := under.FS.ReadDir("/home/u")
		if err != nil || !reflect.DeepEqual(names, want) {
			t.Errorf("ReadDir = %v, %v; want %v", names, err, want)
		}
		names[0] = "changed by the caller" // must not reach the next answer
		b, err := m.ReadFile("/home/u/.bashrc", 100)
		if err != nil || string(b) != "echo hi\n" {
			t.Errorf("ReadFile = %q, %v", b, err)
		}
		b[0] = 'X'
		if _, err := m.ReadFile("/home/u/nothing", 100); err == nil {
			t.Error("ReadFile of an absent file succeeded")
		}
		var de, direct git.DirEntries
		de.Add("stale", false) // ListDir replaces what de held
		if err := m.ListDir("/home/u/proj", &de); err != nil {
			t.Fatal(err)
		}
		if err := under.FS.ListDir("/home/u/proj", &direct); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(de.Names, direct.Names) || !reflect.DeepEqual(de.IsDir, direct.IsDir) || de.Git != direct.Git || !de.Git {
			t.Errorf("ListDir = %+v, want %+v", de, direct)
		}
		if err := m.ListDir("/home/u/.bashrc", &de); err == nil {
			t.Error("ListDir of a file succeeded")
		}
	}
	for q, n := range under.calls {
		if n != 1 {
			t.Errorf("%s reached the FS %d times, want once", q, n)
		}
	}
	m.Forget()
	m.Lstat("/home/u/.ssh")
	if n := under.calls["lstat /home/u/.ssh"]; n != 2 {
		t.Errorf("after Forget, lstat reached the FS %d times in all, want 2", n)
	}
}

// TestMemoGatherSameFacts: the facts gathered through a Memo, first and
// again, are those gathered from the FS directly.
func TestMemoGatherSameFacts(t *testing.T) {
	p := builtinProfile(t, "workspace")
	s := &settings.Settings{Binds: []settings.Bind{{Src: "/home/u/link/a"}}}
	host := func(fsys FS) *Host {
		return &Host{FS: fsys, UID: 1000, Home: "/home/u", HermesHome: "/home/u/.hermes", ProcessCwd: "/home/u/proj"}
	}
	direct := Gather(host(memoTree()), s, p)
	h := host(NewMemo(memoTree()))
	for round := 0; round < 2; round++ {
		if got := Gather(h, s, p); !reflect.DeepEqual(got, direct) {
			t.Fatalf("round %d: facts through a Memo differ:\n%+v\nwant\n%+v", round, got, direct)
		}
	}
}

// TestIsOS: the real file system, directly or through a Memo, and
// nothing else.
func TestIsOS(t *testing.T) {
	for _, c := range []struct {
		fs   FS
		want bool
	}{{OS{}, true}, {NewMemo(OS{}), true}, {factstest.Tree{}, false}, {NewMemo(factstest.Tree{}), false}} {
		if got := IsOS(c.fs); got != c.want {
			t.Errorf("IsOS(%T) = %v, want %v", c.fs, got, c.want)
		}
	}
}

// caseFoldFS is a factstest.Tree on a case-insensitive file system (ext4 or tmpfs
// casefold, vfat, ZFS normalization): a lookup finds a name spelled in
// another case, a listing shows the name as created.
type caseFoldFS struct{ factstest.Tree }

func (c caseFoldFS) Lstat(p string) Stat {
	for k := range c.Tree {
		if len(k) >= len(p) && strings.EqualFold(k[:len(p)], p) && (len(k) == len(p) || k[len(p)] == '/') {
			return c.Tree.Lstat(k[:len(p)]) // the name as created
		}
	}
	return c.Tree.Lstat(p)
}

// TestMemoAsksForEveryName: Memo answers a lookup only with what the FS
// answered for that very path, never from a listing of its directory:
// on a case-insensitive directory a listing holding ".GIT" but no
// ".git" does not make .git absent (its hooks would run on the host).
// An inference from listings saved a third of a compile's lstat calls
// and was taken out for this.
func TestMemoAsksForEveryName(t *testing.T) {
	m := NewMemo(caseFoldFS{factstest.Tree{"/w/proj/.GIT/config": {Kind: invocation.KindFile}}})
	names, err := m.ReadDir("/w/proj")
	if err != nil || len(names) != 1 || names[0] != ".GIT" {
		t.Fatalf("ReadDir = %q, %v", names, err)
	}
	if st := m.Lstat("/w/proj/.git"); st.Kind != invocation.KindDir {
		t.Errorf("Lstat(/w/proj/.git) = %s after a listing without that spelling, want dir (what the file system answers)", st.Kind)
	}
	if st := m.Lstat("/w/proj/.git/config"); st.Kind != invocation.KindFile {
		t.Errorf("Lstat(/w/proj/.git/config) = %s, want file", st.Kind)
	}
}

// TestMemoReadFileBounds: a read with another bound is answered from an
// earlier read that covers it (a larger bound, or the whole file), with
// the bytes a read of its own returns; a read that stopped at its bound,
// or failed, does not answer a larger one.
func TestMemoReadFileBounds(t *testing.T) {
	tree := factstest.Tree{
		"/short": {Kind: invocation.KindFile, Content: strings.Repeat("s", 300)},
		"/long":  {Kind: invocation.KindFile, Content: strings.Repeat("l", 2000)},
	}
	under := &countingFS{FS: tree, calls: map[string]int{}}
	m := NewMemo(under)
	for _, tc := range []struct {
		p     string
		max   int
		reads int // reads of p that reached the FS so far
	}{
		{"/short", 512, 1}, {"/short", 100, 1}, {"/short", 1 << 20, 1}, {"/short", 300, 1},
		{"/long", 512, 1}, {"/long", 100, 1}, {"/long", 1000, 2}, {"/long", 700, 2}, {"/long", 1 << 20, 3}, {"/long", 5, 3},
		{"/absent", 10, 1}, {"/absent", 5, 2},
	} {
		got, err := m.ReadFile(tc.p, tc.max)
		want, werr := tree.ReadFile(tc.p, tc.max)
		if string(got) != string(want) || (err == nil) != (werr == nil) {
			t.Errorf("ReadFile(%s, %d) = %d bytes, %v; want %d bytes, %v", tc.p, tc.max, len(got), err, len(want), werr)
		}
		if n := under.calls["readfile "+tc.p]; n != tc.reads {
			t.Errorf("after ReadFile(%s, %d): %d reads reached the FS, want %d", tc.p, tc.max, n, tc.reads)
		}
	}
}

// TestMemoBelowNonDir: a path below one found absent, or a file or a
// socket, is absent without a question to the FS, which is what the
// kernel answers for it (each case checked against an lstat of its
// own); below a directory, a symlink or a denied path, or on a path
// that is not clean, the FS is asked.
func TestMemoBelowNonDir(t *testing.T) {
	dir := onDisk{dirs: []string{"dir/sub", "target/in"}, files: []string{"file"}, sockets: []string{"sock"},
		links: map[string]string{"link": "target"}}.make(t)
	under := &countingFS{FS: OS{}, calls: map[string]int{}}
	m := NewMemo(under)
	for _, p := range []string{"gone", "file", "sock", "dir", "link"} {
		m.Lstat(filepath.Join(dir, p))
	}
	for _, c := range []struct {
		rel   string
		asked bool
	}{
		{"gone/x", false}, {"gone/x/y", false}, {"file/x", false}, {"file/x/y", false}, {"sock/x", false},
		{"dir/sub", true}, {"dir/absent", true}, {"dir/absent/x", false},
		{"link/in", true}, // through the symlink: there
		{"link/none", true},
		{"dir/../dir/sub", true}, {"gone/../dir/sub", true}, // not clean: asked
	} {
		p := dir + "/" + c.rel
		got, want := m.Lstat(p), (OS{}).Lstat(p)
		if got.Kind != want.Kind {
			t.Errorf("Lstat(%s) = %s, the kernel says %s", c.rel, got.Kind, want.Kind)
		}
		if asked := under.calls["lstat "+p] == 1; asked != c.asked {
			t.Errorf("Lstat(%s): asked the FS %v, want %v", c.rel, asked, c.asked)
		}
	}
	// A denied directory tells nothing of what is below it.
	tree := &countingFS{FS: factstest.Tree{"/d": {Kind: invocation.KindDenied}, "/d/x": {Kind: invocation.KindFile}}, calls: map[string]int{}}
	m = NewMemo(tree)
	m.Lstat("/d")
	if st := m.Lstat("/d/x"); st.Kind != invocation.KindDenied || tree.calls["lstat /d/x"] != 1 {
		t.Errorf("Lstat(/d/x) below a denied directory = %s, asked %d times; want denied, asked", st.Kind, tree.calls["lstat /d/x"])
	}
}
