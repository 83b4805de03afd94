package scan

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bwpolicy/bwpolicy/runtime/watch"
)

// TestChangesCountFollowsChanges: a scan of what changed with nothing
// dirty leaves the walk's count (WatchState.Entries, checked against
// git.MaxWalkEntries) as the last scan left it, so that commands that
// change nothing do not creep towards a whole scan and leave the same
// state behind (bwrun then writes nothing). Control: a directory the
// watcher reports dirty, with a new entry, is counted again (the count
// stays a bound of the tree: it only grows by what was listed anew).
func TestChangesCountFollowsChanges(t *testing.T) {
	f := newScanFixture(t)
	mustWrite(t, filepath.Join(f.proj, "sub", "deep", "a"), "x", 0o644)
	_, st := Whole(f.inv, f.home, time.Now(), nil, nil)
	if st.Entries == 0 {
		t.Fatalf("the whole scan counted no entries")
	}
	for i := 0; i < 3; i++ {
		_, next, ok := Changes(f.inv, f.home, time.Now(), nil, watch.Set{}, &st)
		if !ok || next.Entries != st.Entries {
			t.Fatalf("nothing dirty, scan %d: entries %d (ok %v), want %d", i, next.Entries, ok, st.Entries)
		}
		st = next
	}
	deep := filepath.Join(f.proj, "sub", "deep")
	if err := os.WriteFile(filepath.Join(deep, "b"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, next, ok := Changes(f.inv, f.home, time.Now(), nil, watch.Set{deep: watch.Self}, &st)
	if !ok || next.Entries < st.Entries+2 {
		t.Fatalf("control: %s dirty with 2 entries: entries %d (ok %v), want at least %d", deep, next.Entries, ok, st.Entries+2)
	}
}
