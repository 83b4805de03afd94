package settings

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/bwpolicy/bwpolicy/internal/hostile"
)

// TestHostileRefused: every hostile file is refused by Parse with one
// positioned diagnostic, before anything is expanded.
func TestHostileRefused(t *testing.T) {
	for _, c := range hostile.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			_, ds := Parse("h.yaml", c.Src)
			if len(ds) != 1 {
				t.Fatalf("want one refusal, got %v", ds)
			}
			d := ds[0]
			if d.Pos.File != "h.yaml" || d.Pos.Line != c.Line || d.Pos.Col < 1 || !strings.Contains(d.Summary, c.Want) {
				t.Fatalf("got %s; want line %d and %q", d, c.Line, c.Want)
			}
		})
	}
}

// TestBoundsAcceptReal: the bounds leave real files alone: a Hermes
// config with anchors and a merge key, nested seven levels.
func TestBoundsAcceptReal(t *testing.T) {
	src := "defaults: &d {profile: workspace}\nterminal:\n  cwd: /p\nplugins:\n  entries:\n    bwpolicy:\n      settings:\n        <<: *d\n        binds:\n          - {src: /a}\n        hide: [\"**/*.pem\"]\n"
	doc, ds := Parse("config.yaml", []byte(src))
	if len(ds) != 0 {
		t.Fatal(ds)
	}
	if doc.Values["profile"] != "workspace" {
		t.Fatalf("values %v", doc.Values)
	}
}

// TestBOM: a UTF-8 byte order mark at the start is not part of the
// first key.
func TestBOM(t *testing.T) {
	doc, ds := Parse("s.yaml", []byte("\xef\xbb\xbfprofile: workspace\n"))
	if len(ds) != 0 {
		t.Fatal(ds)
	}
	if doc.Values["profile"] != "workspace" {
		t.Fatalf("values %v", doc.Values)
	}
	if p := doc.Pos([]any{"profile"}); p.Line != 1 || p.Col != 10 {
		t.Fatalf("position %v", p)
	}
}

// TestYAML12Numbers: plain scalars that are YAML 1.2 numbers reach the
// schema as numbers (1e20 out of range, 1e3 = 1000), quoted ones as
// strings; .inf stays a non-finite float for the schema to refuse.
func TestYAML12Numbers(t *testing.T) {
	for src, want := range map[string]any{
		"memory_mb: 1e20":                 json.Number("1e20"),
		"memory_mb: 1e400":                json.Number("1e400"),
		"memory_mb: 1e3":                  json.Number("1000"),
		"memory_mb: 99999999999999999999": json.Number("99999999999999999999"),
		"memory_mb: '1e20'":               "1e20",
		"memory_mb: 1e99999":              json.Number("1e99999"),
	} {
		doc, ds := Parse("s.yaml", []byte(src))
		if len(ds) != 0 {
			t.Fatal(ds)
		}
		if got := doc.Values["memory_mb"]; got != want {
			t.Errorf("%s: got %#v, want %#v", src, got, want)
		}
	}
	doc, _ := Parse("s.yaml", []byte("memory_mb: .inf"))
	if f, ok := doc.Values["memory_mb"].(float64); !ok || f < 1e308 {
		t.Errorf(".inf: got %#v", doc.Values["memory_mb"])
	}
}

// TestLoadNotRegular: a named pipe is refused at once (a blocking open
// would hang here until the test times out), a directory too.
func TestLoadNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "s.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{fifo: "is a named pipe (FIFO), not a settings file", dir: "is a directory, not a settings file"} {
		_, ds := Load(file)
		if len(ds) != 1 || ds[0].Summary != want || ds[0].Pos.File != file {
			t.Errorf("%s: got %v, want %q", file, ds, want)
		}
	}
}

// TestLoadTooLarge: Load reads at most one byte past the bound.
func TestLoadTooLarge(t *testing.T) {
	file := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(file, []byte("cwd: /"+strings.Repeat("a", MaxFileSize)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, ds := Load(file)
	if len(ds) != 1 || ds[0].Pos.Line != 1 || !strings.Contains(ds[0].Summary, "larger than") {
		t.Fatalf("got %v", ds)
	}
}

// BenchmarkHostile measures Parse on each hostile file (time, bytes and
// allocations per refusal); BENCHMARKS.md records the numbers.
func BenchmarkHostile(b *testing.B) {
	for _, c := range hostile.Cases() {
		b.Run(c.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ds := Parse("h.yaml", c.Src); len(ds) != 1 {
					b.Fatal(ds)
				}
			}
		})
	}
}
