package verify

import (
	"math/rand"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/internal/goldentest"
	"github.com/bwpolicy/bwpolicy/internal/testglob"

	"github.com/bwpolicy/bwpolicy/runtime"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// TestRuntimeCheckIsSubset: whatever bwrun's own argument check
// (runtime.CheckArgs, separate code) refuses, verify refuses too, over
// random edits of every golden invocation: dropping an option group,
// repeating one at the end, or turning a read-only bind writable. And
// the unedited goldens pass both.
func TestRuntimeCheckIsSubset(t *testing.T) {
	files := testglob.Files(t, filepath.Join(goldentest.Dir(t), "*.json"))
	rng := rand.New(rand.NewSource(11))
	refused := 0
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		good := loadGolden(t, name)
		if invocation.Validate(good) != nil {
			continue
		}
		if err := runtime.CheckArgs(good); err != nil {
			t.Errorf("%s: the runtime refuses the golden: %v", name, err)
		}
		groups := optionGroups(good.Bwrap.Args)
		for i := 0; i < 200; i++ {
			inv := *good
			g := groups[rng.Intn(len(groups))]
			args := slices.Clone(good.Bwrap.Args)
			switch rng.Intn(3) {
			case 0:
				args = slices.Delete(args, g[0], g[1])
			case 1:
				args = append(args, good.Bwrap.Args[g[0]:g[1]]...)
			case 2:
				if args[g[0]] == "--ro-bind" {
					args[g[0]] = "--bind"
				}
			}
			inv.Bwrap.Args = args
			if invocation.Validate(&inv) != nil || runtime.CheckArgs(&inv) == nil {
				continue
			}
			refused++
			if len(Check(&inv)) == 0 {
				t.Errorf("%s: the runtime refuses, verify accepts %q: %v", name, args, runtime.CheckArgs(&inv))
			}
		}
	}
	if refused < 100 {
		t.Fatalf("only %d edits refused by the runtime: the test exercises too little", refused)
	}
	t.Logf("%d edits refused by the runtime, all by verify too", refused)
}

// optionGroups returns [start, end) of each option with its values.
func optionGroups(args []string) [][2]int {
	var out [][2]int
	for i := 0; i < len(args); {
		n := optionArity[args[i]]
		out = append(out, [2]int{i, i + 1 + n})
		i += 1 + n
	}
	return out
}
