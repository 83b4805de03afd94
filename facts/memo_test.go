package facts

import (
	"io/fs"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/bwpolicy/bwpolicy/profile"
	"github.com/bwpolicy/bwpolicy/runtime"
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
func (c *countingFS) ListDir(p string, de *runtime.DirEntries) error {
	c.calls["listdir "+p]++
	return c.FS.ListDir(p, de)
}

func memoTree() Tree {
	return Tree{
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
		var de, direct runtime.DirEntries
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
	set, ds := profile.Builtin()
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	p, err := set.Resolve("workspace", nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
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
	}{{OS{}, true}, {NewMemo(OS{}), true}, {Tree{}, false}, {NewMemo(Tree{}), false}} {
		if got := IsOS(c.fs); got != c.want {
			t.Errorf("IsOS(%T) = %v, want %v", c.fs, got, c.want)
		}
	}
}

// searchDeniedFS is a Tree whose directory /shut can be listed but not
// searched: every name in it fails to lstat (EACCES).
type searchDeniedFS struct{ Tree }

func (s searchDeniedFS) Lstat(p string) Stat {
	if strings.HasPrefix(p, "/shut/") {
		return Stat{Kind: invocation.KindOther, Err: &fs.PathError{Op: "lstat", Path: p, Err: syscall.EACCES}}
	}
	return s.Tree.Lstat(p)
}

// TestMemoListedAbsent: once a directory is listed, a name it does not
// hold is absent without a lookup, and so is anything below that name;
// a name it holds (and what lies below it) is looked up as before, as
// is a path that is not clean; a directory that can be listed but not
// searched, an empty one or a failed listing infers nothing.
func TestMemoListedAbsent(t *testing.T) {
	tree := memoTree()
	tree["/shut/a"] = Stat{Kind: invocation.KindFile}
	tree["/empty"] = Stat{Kind: invocation.KindDir}
	under := &countingFS{FS: searchDeniedFS{tree}, calls: map[string]int{}}
	m := NewMemo(under)
	for _, d := range []string{"/", "/home/u", "/shut", "/empty", "/home/u/.bashrc"} {
		m.ReadDir(d)
	}
	for _, tc := range []struct {
		p      string
		kind   string
		lookup bool
	}{
		{"/home/u/.aws", invocation.KindAbsent, false},
		{"/home/u/.aws/credentials", invocation.KindAbsent, false},
		{"/home/u/.ssh/id_rsa", invocation.KindAbsent, true},
		{"/home/u/./.gnupg", invocation.KindAbsent, true},
		{"/", invocation.KindDir, true},
		{"/home/u/.ssh", invocation.KindDir, true},
		{"/home/u/link", invocation.KindSymlink, true},
		{"/shut/b", invocation.KindOther, true},
		{"/empty/x", invocation.KindAbsent, true},
		{"/home/u/.bashrc/x", invocation.KindAbsent, true},
		{"/home/u/proj/x", invocation.KindAbsent, true},
	} {
		before := under.calls["lstat "+tc.p]
		if st := m.Lstat(tc.p); st.Kind != tc.kind {
			t.Errorf("Lstat(%s) = %s, want %s", tc.p, st.Kind, tc.kind)
		}
		if looked := under.calls["lstat "+tc.p] > before; looked != tc.lookup {
			t.Errorf("Lstat(%s): looked up %v, want %v", tc.p, looked, tc.lookup)
		}
	}
}
