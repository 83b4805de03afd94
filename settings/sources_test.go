package settings

import (
	"encoding/json"
	"strings"
	"testing"
)

func withEnv(t *testing.T, env map[string]string) {
	t.Helper()
	saved := LookupEnv
	LookupEnv = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	t.Cleanup(func() { LookupEnv = saved })
}

// The PR-era variables apply when a Hermes config sets no settings
// block, each with a warning naming the key to write instead; before
// they were silently ignored (a restricted profile ran under network).
func TestLegacyEnvironmentVariables(t *testing.T) {
	withEnv(t, map[string]string{
		"TERMINAL_BUBBLEWRAP_PROFILE":   "restricted",
		"TERMINAL_BUBBLEWRAP_MAX_PROCS": "64",
		"TERMINAL_BUBBLEWRAP_BINDS":     `[{"src": "~/models", "readonly": false}]`,
		"TERMINAL_BUBBLEWRAP_HIDE":      `["~/Documents/keys"]`,
	})
	doc, ds := Parse("config.yaml", []byte("terminal:\n  backend: bwpolicy\n  home_mode: profile-home\n"))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	got, _ := json.Marshal(doc.Values)
	want := `{"binds":[{"readonly":false,"src":"~/models"}],"hide":["~/Documents/keys"],"home_mode":"profile","max_procs":64,"profile":"restricted"}`
	if string(got) != want {
		t.Fatalf("values %s, want %s", got, want)
	}
	if len(ds) != 4 {
		t.Fatalf("want 4 warnings, got %v", ds)
	}
	for _, d := range ds {
		if d.Rule != RuleConfigSource || !strings.Contains(d.Summary, "plugins.entries.bwpolicy.settings.") || d.Fix == "" {
			t.Errorf("diagnostic %v (fix %q)", d, d.Fix)
		}
	}
	// A config key beats its variable; a settings block beats both.
	doc, _ = Parse("config.yaml", []byte("terminal:\n  bubblewrap_profile: workspace\n"))
	if doc.Values["profile"] != "workspace" {
		t.Errorf("config key: %v", doc.Values)
	}
	doc, ds = Parse("config.yaml", []byte("plugins:\n  entries:\n    bwpolicy:\n      settings: {profile: network}\n"))
	if doc.Values["profile"] != "network" || doc.Values["max_procs"] != nil || len(ds) != 4 || !strings.Contains(ds[0].Summary, "ignored") {
		t.Errorf("settings block: %v %v", doc.Values, ds)
	}
}

func TestLegacyBadVariable(t *testing.T) {
	withEnv(t, map[string]string{"TERMINAL_BUBBLEWRAP_BINDS": "/data", "TERMINAL_BUBBLEWRAP_MEMORY_MB": "lots"})
	_, ds := Parse("config.yaml", []byte("terminal: {}\n"))
	if len(ds) != 2 || !ds.HasErrors() {
		t.Fatalf("want two errors, got %v", ds)
	}
}

func TestHomeModeAliasesStandalone(t *testing.T) {
	for alias := range HomeModeAliases {
		doc, ds := Parse("s.yaml", []byte("home_mode: "+alias+"\n"))
		if len(ds) != 0 || doc.Values["home_mode"] != "profile" {
			t.Errorf("%s: %v %v", alias, doc.Values, ds)
		}
	}
}

// A diagnostic about a PR-era key whose settings path is longer than one
// key (home_allow → home.allow) is positioned at that key; it used to
// panic (slice bounds) when the schema reported the path's first key.
func TestLegacyNestedKeyPositions(t *testing.T) {
	withEnv(t, nil)
	doc, ds := Parse("config.yaml", []byte("terminal:\n  bubblewrap_home_allow: [\"~/.config/foo\"]\n"))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	for _, p := range [][]any{{"home"}, {"home", "allow"}, {"home", "allow", 0}, {"home", "x", "y"}} {
		if got := doc.Pos(p).String(); got != "config.yaml:2:26" && got != "config.yaml:2:27" {
			t.Errorf("%v: %s", p, got)
		}
	}
}

// terminal.backends.bwpolicy, where Hermes' setup writes a backend's
// settings, is read first: alone without a warning, and over the plugin
// namespace, which is then warned as ignored at its own place.
func TestBackendsBlockFirst(t *testing.T) {
	doc, ds := Parse("config.yaml", []byte("terminal:\n  backend: bwpolicy\n  backends:\n    bwpolicy:\n      profile: restricted\n"))
	if len(ds) != 0 {
		t.Fatalf("diagnostics %v", ds)
	}
	if got, _ := json.Marshal(doc.Values); string(got) != `{"profile":"restricted"}` {
		t.Fatalf("values %s", got)
	}
	doc, ds = Parse("config.yaml", []byte("terminal:\n  backends:\n    bwpolicy:\n      profile: restricted\nplugins:\n  entries:\n    bwpolicy:\n      settings:\n        profile: network\n"))
	if got, _ := json.Marshal(doc.Values); string(got) != `{"profile":"restricted"}` {
		t.Fatalf("values %s: the backends block must win", got)
	}
	if len(ds) != 1 || ds[0].Rule != RuleConfigSource || ds[0].Path != "plugins.entries.bwpolicy.settings" ||
		!strings.Contains(ds[0].Summary, "terminal.backends.bwpolicy") || ds[0].Pos.Line != 9 {
		t.Fatalf("want one warning at plugins.entries.bwpolicy.settings (line 9), got %v", ds)
	}
}
