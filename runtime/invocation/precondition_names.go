package invocation

import (
	"fmt"
	"slices"
	"strings"
)

// Expanded returns pre with every row that has Names replaced by one row
// per name (Path/name, Kind, Why), in order: the view of the
// preconditions one path at a time, for readers that are not on every
// command's path (verify, explain). bwrun checks a Names row as it is,
// with one listing of Path.
func Expanded(pre []Precondition) []Precondition {
	n := 0
	for _, p := range pre {
		n += max(1, len(p.Names))
	}
	if n == len(pre) {
		return pre
	}
	out := make([]Precondition, 0, n)
	for _, p := range pre {
		if len(p.Names) == 0 {
			out = append(out, p)
			continue
		}
		for _, name := range p.Names {
			out = append(out, Precondition{Path: NamePath(p.Path, name), Kind: p.Kind, Why: p.Why})
		}
	}
	return out
}

// NamePath is the path a Names entry of a row at dir stands for.
func NamePath(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

// validateNames checks a row with Names (see Precondition.Names).
func validateNames(i int, p Precondition) error {
	if p.Kind != KindFile && p.Kind != KindDir {
		return fmt.Errorf("preconditions[%d] (%s): names are only for kinds %q and %q, not %q", i, p.Path, KindFile, KindDir, p.Kind)
	}
	if !IsCleanAbs(p.Path) || p.Target != "" || p.MTime != 0 || len(p.Match) > 0 || p.NewDirs {
		return fmt.Errorf("preconditions[%d] (%s): a row with names has a clean absolute path, a kind and a why only", i, p.Path)
	}
	if len(p.Names) == 0 {
		return fmt.Errorf("preconditions[%d] (%s): an empty names list stands for nothing", i, p.Path)
	}
	for k, name := range p.Names {
		if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") {
			return fmt.Errorf("preconditions[%d] (%s): names[%d] %q is not one path element", i, p.Path, k, name)
		}
	}
	if !slices.IsSorted(p.Names) || len(slices.Compact(slices.Clone(p.Names))) != len(p.Names) {
		return fmt.Errorf("preconditions[%d] (%s): names are not sorted and unique", i, p.Path)
	}
	return nil
}
