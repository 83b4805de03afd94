package profile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bwpolicy/bwpolicy/internal/bounded"
	"github.com/bwpolicy/bwpolicy/internal/hostile"
)

// TestHostileProfilesAreBounded: a comprehension over list.Range(0, 1e8,
// 1), a 60,000-field struct, a string doubled 40 times, a list doubled
// with list.Concat and a comprehension three levels deep cross a bound
// of the child that evaluates them (a "policy" failure at the profile's
// file and field, within the bound plus the grace period); a 300,000-field struct
// (4.9 MB) is refused by its size at line 1 before CUE reads it, and a
// struct nested 20,000 deep by CUE at its line. Before, each ran 13-30 s
// or more and the first died with a Go stack trace.
func TestHostileProfilesAreBounded(t *testing.T) {
	for _, h := range hostile.Profiles() {
		t.Run(h.Name, func(t *testing.T) {
			t.Parallel() // each bound is mostly a wait, or a child of its own
			dir := t.TempDir()
			file := filepath.Join(dir, h.Name+".cue")
			if err := os.WriteFile(file, h.Src, 0o644); err != nil {
				t.Fatal(err)
			}
			lim := bounded.Limits{Time: 2 * time.Second, MemoryMiB: int64(h.Bound())}
			if !h.Time {
				lim.Time = 60 * time.Second
			}
			start := time.Now()
			set, ds := LoadWith([]string{dir}, lim)
			took := time.Since(start)
			if len(ds) == 0 || ds[0].Pos.File != file || (h.Refusal == "" && len(ds) != 1) {
				t.Fatalf("set %v, diagnostics %v: want one at %s", set != nil, ds, file)
			}
			d := ds[0]
			switch {
			case !h.Time && !h.Memory:
				if d.Rule == "policy" || d.Pos.Line != h.Line || !strings.Contains(d.Summary, h.Refusal) {
					t.Errorf("%v, want a refusal at line %d saying %q", d, h.Line, h.Refusal)
				}
			default:
				var want []string
				if h.Time {
					want = append(want, "did not finish within the time bound (2s)")
				}
				if h.Memory {
					want = append(want, fmt.Sprintf("used more than the memory bound (%d MiB)", h.Bound()))
				}
				ok := false
				for _, w := range want {
					ok = ok || strings.Contains(d.Summary, w)
				}
				if set != nil || d.Rule != "policy" || !ok || !strings.Contains(d.Summary, "custom profile "+file) {
					t.Errorf("%v, want a policy failure naming the profile and one of %q", d, want)
				}
				// The field whose evaluation crosses the bound (found
				// by a second child: CUE evaluates a file whole).
				if d.Pos.Line < 2 || !strings.Contains(d.Summary, "(field ") {
					t.Errorf("%v, want the position and name of the field that crosses the bound", d)
				}
				if took > lim.Time+locateTime+3*time.Second {
					t.Errorf("took %v", took)
				}
			}
		})
	}
}

// TestEveryCUEErrorIsPositioned: CUE errors that carry no position of
// their own (a structural cycle, at the top or nested; a cycle through a
// definition) are placed at the line of the field they name.
func TestEveryCUEErrorIsPositioned(t *testing.T) {
	for name, tc := range map[string]struct {
		src  string
		line int
	}{
		"cycle":        {"name: \"c\"\na: b: a\n", 2},
		"nested cycle": {"name: \"c\"\nx: {\n  a: b: x\n}\n", 3},
		"list cycle":   {"name: \"c\"\nl: [l]\n", 2},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "c.cue")
			if err := os.WriteFile(file, []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, ds := LoadWith([]string{dir}, bounded.Limits{})
			if len(ds) == 0 {
				t.Fatal("no diagnostics")
			}
			found := false
			for _, d := range ds {
				if d.Pos.File != file || d.Pos.Line == 0 {
					t.Errorf("unpositioned: %v", d)
				}
				if strings.Contains(d.Summary, "cycle") && d.Pos.Line == tc.line {
					found = true
				}
			}
			if !found {
				t.Errorf("no cycle error at line %d: %v", tc.line, ds)
			}
		})
	}
}

// TestProfileDirsBudget: the profile files of the --profiles
// directories are read under one budget (8 MiB, 1000 files), refused at
// the file that crossed it, positioned; 7 files of 1,000,000 bytes load.
func TestProfileDirsBudget(t *testing.T) {
	for _, c := range hostile.BudgetCases(MaxProfiles) {
		t.Run(c.Name, func(t *testing.T) {
			dir := t.TempDir()
			err := c.WriteDir(dir, func(i int) string { return fmt.Sprintf("p%04d.cue", i) },
				func(i int) string {
					return fmt.Sprintf("name: \"p%04d\"\ndescription: \"x\"\ncwd_writable: false\nnetwork: \"none\"\n//", i)
				})
			if err != nil {
				t.Fatal(err)
			}
			_, ds := load([]string{dir})
			var refusals []string
			for _, d := range ds {
				if strings.Contains(d.Summary, "bwpolicy reads no more") && d.Pos.Line == 1 && strings.HasPrefix(d.Pos.File, dir) {
					refusals = append(refusals, d.String())
				}
			}
			if c.Over != (len(refusals) == 1) || (!c.Over && ds.HasErrors()) {
				t.Fatalf("over %v: diagnostics %v", c.Over, ds)
			}
		})
	}
}
