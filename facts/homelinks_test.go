package facts

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestHomeDotLinksOnDisk: on the real file system, the dot links of the
// home and of its dot directories are found whatever they point at (a
// directory, a file, nothing), with the directories the listing shows
// left unexamined and every other entry looked at; the links are the
// ones an lstat of every entry finds.
func TestHomeDotLinksOnDisk(t *testing.T) {
	home := onDisk{dirs: []string{".dir", ".config/app", ".local/share/x", "plain"}, files: []string{".file", ".config/f"},
		links: map[string]string{".to-dir": ".dir", ".to-file": ".file", ".dangling": "nothing",
			".config/to-dir": "app", ".local/share/l": "x", "nondot": ".dir"}}.make(t)
	var want []string // every dot entry lstat'd
	for _, rel := range append([]string{""}, homeDotDirs...) {
		names, _ := (OS{}).ReadDir(filepath.Join(home, rel))
		for _, n := range names {
			p := filepath.Join(home, rel, n)
			if (rel != "" || n[0] == '.') && (OS{}).Lstat(p).Kind == "symlink" {
				want = append(want, p)
			}
		}
	}
	under := &countingFS{FS: OS{}, calls: map[string]int{}}
	g := &gatherer{fs: NewMemo(under), observed: map[string]Stat{}, walked: map[string]*Walked{}}
	links, truncated := g.homeDotLinks(home)
	if !slices.Equal(links, want) || len(truncated) != 0 || len(want) != 5 {
		t.Errorf("links %q (truncated %q), want %q", links, truncated, want)
	}
	for _, rel := range []string{".dir", ".config/app", ".local/share/x"} {
		if n := under.calls["lstat "+filepath.Join(home, rel)]; n != 0 {
			t.Errorf("%s, a directory in its listing, lstat'd %d times", rel, n)
		}
	}
	for _, rel := range []string{".file", ".config/f", ".to-dir", ".dangling"} {
		if n := under.calls["lstat "+filepath.Join(home, rel)]; n != 1 {
			t.Errorf("%s lstat'd %d times, want once", rel, n)
		}
	}
	for _, l := range links {
		if g.observed[l].Kind != "symlink" {
			t.Errorf("link %s not recorded", l)
		}
	}
}
