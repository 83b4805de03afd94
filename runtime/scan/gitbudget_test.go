package scan

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// H9 (issue 26 §3): 1,000 symlinks into one deep directory of a .git
// cost one look at each place inside it, not one per link: the scan
// looks at the chain's directories once each (linkTarget), and a
// thousand links finish within the 150 ms (measured here with a
// margin for a loaded machine; bench/run.sh has the figure). A planted
// config at the bottom of the chain is still found, and every link to
// it is set aside.
func TestScanGitLinksIntoGitDirOnce(t *testing.T) {
	f := newScanFixture(t)
	deep := filepath.Join(f.proj, ".git", "objects")
	for i := 0; i < 40; i++ {
		deep = filepath.Join(deep, fmt.Sprintf("d%d", i))
	}
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	f.compiledNow()
	links := filepath.Join(f.proj, "links")
	os.Mkdir(links, 0o755)
	for i := 0; i < 1000; i++ {
		// Every link's text differs ("./" repeated), so that each is
		// resolved on its own: the places on the way are looked up once.
		text := strings.Repeat("./", i) + deep
		if i%2 == 1 {
			text = "../" + strings.Repeat("./", i) + strings.TrimPrefix(deep, f.proj+"/")
		}
		if err := os.Symlink(text, filepath.Join(links, fmt.Sprintf("l%04d", i))); err != nil {
			t.Fatal(err)
		}
	}
	s := newGitScan(f.inv, f.home, time.Now(), f.led)
	start := time.Now()
	s.run(f.inv)
	took := time.Since(start)
	if len(s.linked) > 2*41 {
		t.Errorf("%d places looked at through links, want at most %d", len(s.linked), 2*41)
	}
	if took > 2*time.Second {
		t.Errorf("1,000 links into a .git took %v", took)
	}
	t.Logf("1,000 links into a 40-deep .git directory: %v, %d places", took, len(s.linked))
	if s.rep.Stale() {
		t.Errorf("links to nothing that runs made the run stale: %+v", s.rep)
	}
	// Code at the bottom: found once, every link set aside.
	mustWrite(t, filepath.Join(deep, "HEAD"), "ref: refs/heads/main\n", 0o644)
	os.Mkdir(filepath.Join(deep, "refs"), 0o755)
	mustWrite(t, filepath.Join(deep, "config"), "[core]\n\tfsmonitor = \""+f.evil()+"\"\n", 0o644)
	rep := f.scan(t)
	wantSetAside(t, rep, filepath.Join(deep, "config"), filepath.Join(links, "l0000"), filepath.Join(links, "l0999"))
}

// H9 (issue 26 §3): when the scan's time budget runs out it stops, the
// run is incomplete (stale, unresolved) and the message names the
// directory that used the most of the budget; nothing is set aside that
// was not reached and the ledger is not touched. A fake clock advancing
// 1 ms a look makes it run out inside the large directory.
func TestScanGitBudget(t *testing.T) {
	f := newScanFixture(t)
	for i := 0; i < 400; i++ {
		os.MkdirAll(filepath.Join(f.proj, "big", fmt.Sprintf("d%03d", i)), 0o755)
	}
	os.MkdirAll(filepath.Join(f.proj, "small"), 0o755)
	f.compiledNow()
	n := f.led.Len()
	s := newGitScan(f.inv, f.home, time.Now(), f.led)
	fake := time.Now()
	s.clock = func() time.Time { fake = fake.Add(time.Millisecond); return fake }
	s.deadline = fake.Add(200 * time.Millisecond)
	s.run(f.inv)
	if !s.rep.Unresolved || !s.rep.Stale() {
		t.Fatalf("an exhausted budget is not an incomplete run: %+v", s.rep)
	}
	msg := strings.Join(s.rep.Warnings, "\n")
	if !strings.Contains(msg, "ran out of its time budget") || !strings.Contains(msg, filepath.Join(f.proj, "big")+" used the most") {
		t.Errorf("the message does not name the directory that used the budget:\n%s", msg)
	}
	if len(s.rep.SetAside) > 0 || f.led.Len() != n {
		t.Errorf("an incomplete scan set aside %v or changed the ledger", s.rep.SetAside)
	}
	// Control: with the budget, the same scan completes.
	if rep := f.scan(t); rep.Stale() {
		t.Errorf("the scan with its real budget: %+v", rep)
	}
}

// H9: code an earlier command left unjudged (its scan ran out of budget)
// in a repository a recompile then binds read-only is judged all the
// same while the ledger is Unresolved: a read-only bind says what this
// command cannot write, not what an earlier one did not. Control: the
// same plant, the ledger resolved, is the read-only bind's (a command
// could not have written it since the last finished scan).
func TestScanGitUnresolvedJudgesReadOnly(t *testing.T) {
	for _, unresolved := range []bool{true, false} {
		f := newScanFixture(t)
		f.compiledNow()
		mustWrite(t, filepath.Join(f.proj, ".git", "config"), "[core]\n\tfsmonitor = \""+f.evil()+"\"\n", 0o644)
		f.led.Unresolved = unresolved
		rep := f.scan(t)
		if unresolved {
			wantSetAside(t, rep, filepath.Join(f.proj, ".git", "config"))
			if f.hostGitRuns(t, f.proj) {
				t.Errorf("host git ran the plant")
			}
		} else if len(rep.SetAside) > 0 {
			t.Errorf("control: a read-only config set aside with the ledger resolved: %+v", rep)
		}
	}
}

// writableSibling answers as writableLexical for every child, in the
// walk's order (siblings one after another), with masks, read-only
// binds and pins among them; and with a bind at another path, it
// falls back to writableLexical for each.
func TestWritableSibling(t *testing.T) {
	f := newScanFixture(t)
	p := f.proj
	f.inv.Bwrap.Args = append(f.inv.Bwrap.Args, "--tmpfs", p+"/a/sec", "--ro-bind", p+"/a/ro", p+"/a/ro",
		"--bind", p+"/a/pin", p+"/a/pin", "--tmpfs", p+"/b", "--bind", p+"/b/back", p+"/b/back")
	for _, other := range []bool{false, true} {
		if other {
			f.inv.Bwrap.Args = append(f.inv.Bwrap.Args, "--bind", p+"/src", p+"/elsewhere")
		}
		s := newGitScan(f.inv, f.home, time.Now(), nil)
		for _, c := range []string{"a/x", "a/sec", "a/y", "a/ro", "a/pin", "a/z", "b/x", "b/back", "b/y", "a/sec/deep", "a/sec/deeper", "b/back/x", "b/back/y", ".git/x", ".git/config", "elsewhere", "src/x"} {
			q := p + "/" + c
			if got, want := s.writableSibling(q), s.writableLexical(q); got != want {
				t.Errorf("other bind %v: %s: writableSibling %v, writableLexical %v", other, c, got, want)
			}
		}
	}
}
