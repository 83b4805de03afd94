package schema

import (
	"reflect"
	"testing"

	"github.com/bwpolicy/bwpolicy/diag"
)

// TestPrune: each kind of schema error drops what it is about and
// nothing else; what Prune cannot salvage stops compilation.
func TestPrune(t *testing.T) {
	schemaErr := func(path string) diag.Diagnostic {
		return diag.Diagnostic{Severity: diag.Error, Rule: "schema", Path: path}
	}
	for _, c := range []struct {
		name   string
		values map[string]any
		ds     diag.List
		want   map[string]any // nil: not salvageable
	}{
		{"unknown key", map[string]any{"cwd": "/", "memroy_mb": 1}, diag.List{schemaErr("memroy_mb")}, map[string]any{"cwd": "/"}},
		{"key in a bind", map[string]any{"binds": []any{map[string]any{"src": "/a", "mode": "rw"}}}, diag.List{schemaErr("binds[0].mode")},
			map[string]any{"binds": []any{map[string]any{"src": "/a"}}}},
		{"bad item drops its list", map[string]any{"hide": []any{"x", 1.0, 2.0}, "cwd": "/p"}, diag.List{schemaErr("hide[1]"), schemaErr("hide[2]")},
			map[string]any{"cwd": "/p"}},
		{"nested key", map[string]any{"seccomp": map[string]any{"alow": []any{"ptrace"}}}, diag.List{schemaErr("seccomp.alow")},
			map[string]any{"seccomp": map[string]any{}}},
		{"no path", map[string]any{"cwd": "/"}, diag.List{schemaErr("")}, nil},
		{"not a schema error", map[string]any{"cwd": "/"}, diag.List{{Severity: diag.Error, Rule: "yaml", Path: "cwd"}}, nil},
		{"unreported error left", map[string]any{"cwd": 1.0, "x": 1}, diag.List{schemaErr("x")}, nil},
		{"unparsable path", map[string]any{"a": 1}, diag.List{schemaErr("a[x]")}, nil},
	} {
		got, ok := Prune(c.values, c.ds)
		if ok != (c.want != nil) || (ok && !reflect.DeepEqual(got, c.want)) {
			t.Errorf("%s: Prune = %v, %v; want %v", c.name, got, ok, c.want)
		}
	}
	// The input is not modified.
	in := map[string]any{"memroy_mb": 1}
	Prune(in, diag.List{schemaErr("memroy_mb")})
	if _, ok := in["memroy_mb"]; !ok {
		t.Error("Prune modified its input")
	}
}

func TestParsePath(t *testing.T) {
	for in, want := range map[string][]any{
		"cwd": {"cwd"}, "binds[1].src": {"binds", 1, "src"}, "a.b.c": {"a", "b", "c"}, "a[1][2]": {"a", 1, 2},
	} {
		if got, ok := parsePath(in); !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("parsePath(%q) = %v, %v", in, got, ok)
		}
	}
	for _, bad := range []string{"", "[1]", "a[x]", "a[1]b", "a[-1]"} {
		if _, ok := parsePath(bad); ok {
			t.Errorf("parsePath(%q) accepted", bad)
		}
	}
}
