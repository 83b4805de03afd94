package settings

import (
	"testing"
)

func TestHermesFormPositions(t *testing.T) {
	src := "model: x\nterminal:\n  cwd: /p\n  home_mode: profile\nplugins:\n  entries:\n    bubblewrap:\n      settings:\n        profile: workspace\n        binds:\n          - {src: /a, dest: /b}\n"
	doc, ds := Parse("config.yaml", []byte(src))
	if len(ds) != 1 || ds[0].Rule != RuleConfigSource { // the bubblewrap namespace: warned
		t.Fatal(ds)
	}
	if doc.Form != FormHermes {
		t.Fatalf("form %s", doc.Form)
	}
	if doc.Values["cwd"] != "/p" || doc.Values["home_mode"] != "profile" || doc.Values["profile"] != "workspace" {
		t.Fatalf("values %v", doc.Values)
	}
	for path, want := range map[string]string{
		"cwd":     "config.yaml:3:8",
		"profile": "config.yaml:9:18",
		"dest":    "config.yaml:11:29",
	} {
		var p []any
		switch path {
		case "dest":
			p = []any{"binds", 0, "dest"}
		default:
			p = []any{path}
		}
		if got := doc.Pos(p).String(); got != want {
			t.Errorf("%s: %s, want %s", path, got, want)
		}
	}
	if got := doc.KeyPos([]any{"profile"}).String(); got != "config.yaml:9:9" {
		t.Errorf("key position %s", got)
	}
}

func TestStandaloneAndBadShapes(t *testing.T) {
	doc, ds := Parse("s.yaml", []byte("profile: restricted\n"))
	if len(ds) != 0 || doc.Form != FormStandalone {
		t.Fatal(ds)
	}
	for src, want := range map[string]string{
		"- a\n":             "s.yaml:1:1: error: settings must be a mapping of keys to values [schema]",
		"a: 1\n---\nb: 2\n": "s.yaml:1:1: error: expected one YAML document, found 2 [yaml]",
		"plugins: 3\n":      "s.yaml:1:10: error: plugins: must be a mapping [schema]",
	} {
		_, ds := Parse("s.yaml", []byte(src))
		if len(ds) != 1 || ds[0].String() != want {
			t.Errorf("%q: got %v, want %s", src, ds, want)
		}
	}
}

func TestPathString(t *testing.T) {
	if got := PathString([]any{"binds", 1, "src"}); got != "binds[1].src" {
		t.Fatal(got)
	}
}
