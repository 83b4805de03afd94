package runtime

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// BenchmarkHomeNewEntries measures what issue 30 §4 adds to every bwrun:
// HOME's row (mtime recorded, Match HomeNewEntries) beside the names rows
// of its n entries. "same" is HOME's mtime unchanged (one lstat more than
// before); "changed" is a dot entry made since the compile, so every run
// lists HOME and finds nothing new (the worst steady case).
func BenchmarkHomeNewEntries(b *testing.B) {
	for _, n := range []int{200, 4000} {
		for _, changed := range []bool{false, true} {
			name := fmt.Sprintf("entries=%d/same", n)
			if changed {
				name = fmt.Sprintf("entries=%d/changed", n)
			}
			b.Run(name, func(b *testing.B) {
				home := b.TempDir()
				var names []string
				for i := 0; i < n; i++ {
					nm := fmt.Sprintf("e%05d", i)
					if err := os.Mkdir(filepath.Join(home, nm), 0o755); err != nil {
						b.Fatal(err)
					}
					names = append(names, nm)
				}
				sort.Strings(names)
				fi, err := os.Lstat(home)
				if err != nil {
					b.Fatal(err)
				}
				inv := &invocation.Invocation{Preconditions: []invocation.Precondition{
					{Path: home, Kind: invocation.KindDir, MTime: fi.ModTime().UnixNano(), Match: []string{invocation.HomeNewEntries}, Why: "H10"},
					{Path: home, Kind: invocation.KindDir, Names: names, Why: "path component"},
				}}
				if changed {
					time.Sleep(10 * time.Millisecond)
					if err := os.WriteFile(filepath.Join(home, ".lesshst"), nil, 0o600); err != nil {
						b.Fatal(err)
					}
				}
				if err := CheckPreconditions(inv); err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := CheckPreconditions(inv); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
