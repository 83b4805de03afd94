package settings

import (
	"strings"
	"testing"
)

// TestSandboxDirRecordedNotUsed: terminal.sandbox_dir (and a standalone
// file's sandbox_dir) is kept in the values and warned, at its position,
// as recorded and not used; unset or empty, no warning.
func TestSandboxDirRecordedNotUsed(t *testing.T) {
	for _, c := range []struct{ name, src, pos, path string }{
		{"hermes", "terminal:\n  backend: bwpolicy\n  sandbox_dir: /srv/sandboxes\n", "config.yaml:3:16", "terminal.sandbox_dir"},
		{"standalone", "profile: workspace\nsandbox_dir: /srv/sandboxes\n", "config.yaml:2:14", "sandbox_dir"},
	} {
		doc, ds := Parse("config.yaml", []byte(c.src))
		if doc == nil || doc.Values["sandbox_dir"] != "/srv/sandboxes" {
			t.Fatalf("%s: sandbox_dir not recorded: %v %v", c.name, doc, ds)
		}
		if len(ds) != 1 || ds[0].Rule != RuleConfigSource || ds[0].Path != c.path || ds[0].Pos.String() != c.pos ||
			!strings.Contains(ds[0].Summary, "recorded, not used") {
			t.Errorf("%s: diagnostics %v", c.name, ds)
		}
	}
	for _, src := range []string{"terminal:\n  backend: bwpolicy\n  cwd: /p\n", "terminal:\n  sandbox_dir: \"\"\n", "profile: workspace\n"} {
		if _, ds := Parse("config.yaml", []byte(src)); len(ds) != 0 {
			t.Errorf("%q: unexpected diagnostics %v", src, ds)
		}
	}
}
