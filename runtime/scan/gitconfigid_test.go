package scan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// H9: a configuration file's identity in the ledger is what is
// code-bearing in it (git.ConfigDigest). In the user's repository whose
// config holds code keys (core.pager, an alias), the host's git config
// user.name, a new remote and a branch's upstream leave it the user's:
// no finding, the file stays. A code key the command adds, an include it
// adds and a code key's value it changes each make it the command's: set
// aside, and host git runs nothing. A file the parser cannot read is
// judged by its whole content: unchanged, it stays; one byte more, and
// it is set aside.
func TestScanGitConfigIdentity(t *testing.T) {
	f := newScanFixture(t)
	dir, cfg, _ := f.userRepo(t)
	f.compiledNow()
	runGit(t, f.home, dir, "config", "user.name", "someone")
	runGit(t, f.home, dir, "remote", "add", "origin", "https://example.com/r.git")
	runGit(t, f.home, dir, "config", "branch.main.remote", "origin")
	if rep := f.scan(t); rep.Stale() || len(rep.Warnings) > 0 {
		t.Fatalf("host edits of keys that run nothing made the user's config the command's: %+v", rep)
	}
	if _, err := os.Stat(cfg); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, add string }{
		{"fsmonitor added", "[core]\n\tfsmonitor = \"EVIL\"\n"},
		{"include added", "[include]\n\tpath = ../../../evil.inc\n"},
		{"pager changed", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := newScanFixture(t)
			d, cf, _ := g.userRepo(t)
			mustWrite(t, filepath.Join(g.proj, "evil.inc"), "[core]\n\tfsmonitor = \""+g.evil()+"\"\n", 0o644)
			g.compiledNow()
			runGit(t, g.home, d, "config", "user.name", "someone") // the host's edit too
			b, _ := os.ReadFile(cf)
			add := strings.ReplaceAll(c.add, "EVIL", g.evil())
			if c.name == "pager changed" {
				// The pager runs at a terminal only: the set-aside is
				// the check.
				mustWrite(t, cf, strings.Replace(string(b), "less -R", g.evil()+"; less -R", 1), 0o644)
				wantSetAside(t, g.scan(t), cf)
				return
			}
			g.attack(t, d, func() { mustWrite(t, cf, string(b)+add, 0o644) }, cf)
		})
	}

	// Unparsable: the whole content is the identity.
	u := newScanFixture(t)
	_, cu, _ := u.userRepo(t)
	b, _ := os.ReadFile(cu)
	bad := string(b) + "[core\n" // git: bad config line
	mustWrite(t, cu, bad, 0o644)
	u.compiledNow()
	if rep := u.scan(t); rep.Stale() {
		t.Fatalf("an unparsable config unchanged since the recording was set aside: %+v", rep)
	}
	mustWrite(t, cu, bad+"# x\n", 0o644)
	wantSetAside(t, u.scan(t), cu)
}
