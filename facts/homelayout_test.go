package facts

import (
	"github.com/bwpolicy/bwpolicy/facts/factstest"

	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/bwpolicy/bwpolicy/settings"
)

// TestHomeLayout: which entries are bound back and why, which are left
// out, what is read-write, and what the layout hides.
func TestHomeLayout(t *testing.T) {
	tree := factstest.Tree{
		"/h/proj/a":                       {Kind: "file"},
		"/h/notes":                        {Kind: "file"},
		"/h/Documents":                    {Kind: "symlink", Target: "/data/docs"},
		"/h/.bashrc":                      {Kind: "file"},
		"/h/.gitconfig":                   {Kind: "symlink", Target: ".dotfiles/gitconfig"},
		"/h/.dotfiles/gitconfig":          {Kind: "file"},
		"/h/.ssh/id_rsa":                  {Kind: "file"},
		"/h/.zz/x":                        {Kind: "file"},
		"/h/.zzfile":                      {Kind: "file"},
		"/h/.mytool/conf":                 {Kind: "file"},
		"/h/.tools/bin/hello":             {Kind: "file"},
		"/h/.config/git/config":           {Kind: "file"},
		"/h/.config/gh/hosts.yml":         {Kind: "file"},
		"/h/.config/zz/y":                 {Kind: "file"},
		"/h/.local/bin/tool":              {Kind: "file"},
		"/h/.local/share/zz/z":            {Kind: "file"},
		"/h/.local/share/keyrings/k":      {Kind: "file"},
		"/h/.cache/huggingface/token":     {Kind: "file"},
		"/h/.cache/go-build/00/x":         {Kind: "file"},
		"/h/.cache/ms-playwright/chrome":  {Kind: "file"},
		"/h/.hermes/cache/scratch/marker": {Kind: "file"},
	}
	h := &Host{FS: tree, Home: "/h", Env: map[string]string{"PATH": "/usr/bin:/h/.tools/bin:/h/go/bin"}}
	s := &settings.Settings{Home: &settings.HomePolicy{Allow: []string{"~/.mytool", ".ssh/id_rsa"}}}
	g := &gatherer{fs: tree, observed: map[string]Stat{}, walked: map[string]*Walked{}}
	l := g.homeLayout(h, s, []writableRoot{{"/h/proj", -1}}, []Hidden{{Entry: "/h/.ssh", Path: "/h/.ssh", Kind: "dir"}})
	var got []string
	for _, e := range l.Entries {
		got = append(got, fmt.Sprintf("%s %s %s rw=%v", e.Path, e.Kind, e.Why, e.Writable))
	}
	want := []string{
		"/h/.bashrc file built-in rw=false",
		"/h/.cache/huggingface dir cache rw=false",
		"/h/.cache/ms-playwright dir cache rw=false",
		"/h/.config/git dir built-in rw=false",
		"/h/.gitconfig symlink built-in rw=false",
		"/h/.local/bin dir built-in rw=false",
		"/h/.mytool dir home.allow rw=false",
		"/h/.tools/bin dir PATH rw=false",
		"/h/Documents symlink non-dot rw=false",
		"/h/notes file non-dot rw=false",
		"/h/proj dir non-dot rw=true",
	}
	if !slices.Equal(got, want) {
		t.Errorf("entries:\n got %q\nwant %q", got, want)
	}
	// Mounts leaves out the two symlink entries (recreated, not
	// mounted): the bind-count warning reads it.
	if l.Mounts != len(want)-2 {
		t.Errorf("mounts %d, want %d", l.Mounts, len(want)-2)
	}
	wantDirs := []string{"/h", "/h/.config", "/h/.local", "/h/.local/share", "/h/.cache"}
	if !slices.Equal(l.Dirs, wantDirs) {
		t.Errorf("dirs %q, want %q", l.Dirs, wantDirs)
	}
	wantLeft := []string{"/h/.dotfiles", "/h/.hermes", "/h/.ssh", "/h/.tools", "/h/.zz", "/h/.zzfile", "/h/.config/gh", "/h/.config/zz", "/h/.local/share/keyrings", "/h/.local/share/zz", "/h/.cache/go-build"}
	if !slices.Equal(l.Left, wantLeft) {
		t.Errorf("left %q, want %q", l.Left, wantLeft)
	}
	if !slices.Equal(l.Dangling, []string{"/h/.gitconfig"}) {
		t.Errorf("dangling %q: ~/.gitconfig points into the left-out .dotfiles", l.Dangling)
	}
	for p, hides := range map[string]bool{
		"/h/.ssh": true, "/h/.ssh/config": true, "/h/.ssh/id_rsa": true, "/h/.config/gh/hosts.yml": true,
		"/h/.config": false, "/h": false, "/h/.cache/huggingface/token": false, "/h/proj/x": false, "/elsewhere": false,
	} {
		if l.Hides(p) != hides {
			t.Errorf("Hides(%s) = %v, want %v", p, !hides, hides)
		}
	}
	if got := l.LeftEntry("/h/.config/gh/x"); got != "/h/.config/gh" {
		t.Errorf("LeftEntry = %q", got)
	}
	// Listing HOME is not a precondition; the entries bound back are.
	if _, ok := g.observed["/h/.zz"]; ok {
		t.Error("a left-out entry was recorded as a precondition")
	}
	if _, ok := g.observed["/h/notes"]; !ok {
		t.Error("a bound entry was not recorded")
	}
}

// TestHomeLayoutNotApplied: HOME of / or a missing HOME is not laid out
// (a note says so); the denylist layout is never laid out.
func TestHomeLayoutNotApplied(t *testing.T) {
	for _, tc := range []struct {
		home, layout string
		note         bool
	}{{"/", "", true}, {"/nohome", "", true}, {"/h", settings.HomeDenylist, false}} {
		tree := factstest.Tree{"/h/x": {Kind: "file"}}
		g := &gatherer{fs: tree, observed: map[string]Stat{}, walked: map[string]*Walked{}}
		s := &settings.Settings{Home: &settings.HomePolicy{Layout: tc.layout}}
		l := g.homeLayout(&Host{FS: tree, Home: tc.home}, s, nil, nil)
		if l.Active() || (l.Note != "") != tc.note {
			t.Errorf("%+v: active=%v note=%q", tc, l.Active(), l.Note)
		}
	}
}

// TestHomeLayoutTruncated: a HOME with more entries than are looked
// through is not laid out silently: it is listed, and policy refuses it.
func TestHomeLayoutTruncated(t *testing.T) {
	tree := factstest.Tree{}
	for i := 0; i <= maxHomeEntries; i++ {
		tree[fmt.Sprintf("/h/e%05d", i)] = Stat{Kind: "file"}
	}
	g := &gatherer{fs: tree, observed: map[string]Stat{}, walked: map[string]*Walked{}}
	l := g.homeLayout(&Host{FS: tree, Home: "/h"}, &settings.Settings{}, nil, nil)
	if !slices.Equal(l.Truncated, []string{"/h"}) {
		t.Errorf("truncated %q", l.Truncated)
	}
}

// TestHomeLayoutOnDisk: on the real file system the entries bound back
// have the kinds (and a symlink its target) an lstat of each finds, and
// each is recorded (its precondition) as that lstat found it but for a
// directory's modification time; a directory the listing shows needs
// no lstat. A directory a hide glob walked keeps the modification
// time its own precondition needs.
func TestHomeLayoutOnDisk(t *testing.T) {
	home := onDisk{dirs: []string{"dir", "walked", "proj", ".config/git"}, files: []string{"file", ".bashrc"}, sockets: []string{"sock"},
		links: map[string]string{"to-dir": "dir", ".profile": "file", "dangling": "nothing"}}.make(t)
	under := &countingFS{FS: OS{}, calls: map[string]int{}}
	h := &Host{FS: under, Home: home, HermesHome: filepath.Join(home, ".hermes"), ProcessCwd: filepath.Join(home, "proj"), Env: map[string]string{}}
	f := Gather(h, &settings.Settings{Hide: []string{"~/walked/*.key"}}, builtinProfile(t, "workspace"))
	want := map[string]bool{"dir": true, "walked": true, "file": true, "sock": true, ".bashrc": true, ".profile": true,
		"to-dir": true, "dangling": true, ".config/git": true}
	for _, e := range f.HomeLayout.Entries {
		rel, _ := filepath.Rel(home, e.Path)
		if !want[rel] {
			continue
		}
		delete(want, rel)
		st := (OS{}).Lstat(e.Path)
		if e.Kind != st.Kind || e.Target != st.Target {
			t.Errorf("%s: entry %s %q, lstat finds %s %q", rel, e.Kind, e.Target, st.Kind, st.Target)
		}
		rec, ok := f.Observed[e.Path]
		if !ok || rec.Kind != st.Kind || rec.Target != st.Target {
			t.Errorf("%s: recorded %+v (%v), lstat finds %+v", rel, rec, ok, st)
		}
		if n := under.calls["lstat "+e.Path]; rel == "dir" && n != 0 { // nothing else looks at it
			t.Errorf("%s, a directory in its listing, lstat'd %d times", rel, n)
		}
	}
	if len(want) != 0 {
		t.Errorf("not bound back: %v", want)
	}
	walked := filepath.Join(home, "walked")
	if f.Walked[walked] == nil || f.Observed[walked].MTime == 0 || f.Observed[walked].MTime != (OS{}).Lstat(walked).MTime {
		t.Errorf("walked %s: %+v, recorded %+v", walked, f.Walked[walked], f.Observed[walked])
	}
}
