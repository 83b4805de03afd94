package ledger

import (
	"path/filepath"
	"testing"
)

// TestWatchStateSame: a state is Same as the file it would overwrite
// only when every field and every kept listing is; a state never loaded
// (nothing there to compare) is not. Controls: a new generation, one
// more entry, another kind of scan and a listing changed each make it
// differ, so that bwrun saves it.
func TestWatchStateSame(t *testing.T) {
	p := filepath.Join(t.TempDir(), "inv.json"+WatchSuffix)
	mk := func() *WatchState {
		v := NewIndex()
		v.Put("/w/r", &Listing{Dev: 1, Ino: 2, Ctime: 3, Count: 2, Names: []string{".git", "a"}, Kinds: []byte{'d', 'f'}})
		return &WatchState{Token: "tok", Gen: 7, Entries: 100, Changes: true, Visits: v}
	}
	if err := mk().Save(p); err != nil {
		t.Fatal(err)
	}
	old, err := LoadWatchState(p)
	if err != nil {
		t.Fatal(err)
	}
	if !mk().Same(old) {
		t.Fatalf("the state saved and loaded back is not Same as itself")
	}
	if mk().Same(nil) || mk().Same(mk()) {
		t.Fatalf("Same without a loaded file to compare with")
	}
	for name, change := range map[string]func(w *WatchState){
		"generation": func(w *WatchState) { w.Gen++ },
		"entries":    func(w *WatchState) { w.Entries++ },
		"scan kind":  func(w *WatchState) { w.Changes = false },
		"token":      func(w *WatchState) { w.Token = "other" },
		"listing": func(w *WatchState) {
			w.Visits.Put("/w/r", &Listing{Dev: 1, Ino: 2, Ctime: 4, Count: 2, Names: []string{".git", "a"}, Kinds: []byte{'d', 'f'}})
		},
	} {
		w := mk()
		change(w)
		if w.Same(old) {
			t.Errorf("control: a changed %s is Same", name)
		}
	}
}
