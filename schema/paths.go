package schema

import (
	"fmt"
	"math"
	"strings"

	"github.com/bwpolicy/bwpolicy/diag"
)

// Path bounds of Linux: a path the kernel accepts is at most PATH_MAX
// bytes (the terminating NUL included) with no component over NAME_MAX
// bytes, and never contains a NUL byte.
const (
	pathMax = 4096
	nameMax = 255
)

// pathDiags checks the settings that are host or sandbox paths (cwd,
// sandbox_dir, hide, binds[].src and .dest) for what no path can be: a
// NUL byte, more than PATH_MAX bytes, a component over NAME_MAX. Such a
// value would compile into an invocation whose recorded host state can
// never match (bwrun refuses it as stale forever), so it is refused here,
// at its position. Values of the wrong type are left to the JSON Schema.
func pathDiags(values map[string]any, at Located) diag.List {
	var out diag.List
	check := func(path []any, v any) {
		s, ok := v.(string)
		if !ok {
			return
		}
		if msg := pathProblem(s); msg != "" {
			out.Add(diag.Diagnostic{Severity: diag.Error, Rule: "schema", Pos: at.Pos(path), Path: pathString(path), Summary: msg})
		}
	}
	check([]any{"cwd"}, values["cwd"])
	check([]any{"sandbox_dir"}, values["sandbox_dir"])
	if hide, ok := values["hide"].([]any); ok {
		for i, h := range hide {
			check([]any{"hide", i}, h)
		}
	}
	if binds, ok := values["binds"].([]any); ok {
		for i, b := range binds {
			if m, ok := b.(map[string]any); ok {
				check([]any{"binds", i, "src"}, m["src"])
				check([]any{"binds", i, "dest"}, m["dest"])
			}
		}
	}
	return out
}

// pathProblem says what makes s impossible as a path, or "".
func pathProblem(s string) string {
	if strings.IndexByte(s, 0) >= 0 {
		return "contains a NUL byte, which no path can"
	}
	if len(s) >= pathMax {
		return fmt.Sprintf("is %d bytes long; a path is shorter than %d bytes (PATH_MAX)", len(s), pathMax)
	}
	for _, c := range strings.Split(s, "/") {
		if len(c) > nameMax {
			return fmt.Sprintf("has a component of %d bytes; a file name is at most %d bytes (NAME_MAX)", len(c), nameMax)
		}
	}
	return ""
}

// numberDiags reports the numbers JSON cannot carry (YAML's .inf, -.inf
// and .nan), at their position, wherever they are in the settings.
func numberDiags(v any, path []any, at Located) diag.List {
	switch t := v.(type) {
	case float64:
		if math.IsInf(t, 0) || math.IsNaN(t) {
			return diag.List{{Severity: diag.Error, Rule: "schema", Pos: at.Pos(path), Path: pathString(path),
				Summary: "must be a finite number (not .inf, -.inf or .nan)"}}
		}
	case map[string]any:
		var out diag.List
		for k, e := range t {
			out.Append(numberDiags(e, append(append([]any(nil), path...), k), at))
		}
		return out
	case []any:
		var out diag.List
		for i, e := range t {
			out.Append(numberDiags(e, append(append([]any(nil), path...), i), at))
		}
		return out
	}
	return nil
}
