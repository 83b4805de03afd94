package compiler

import (
	"bytes"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/facts"
)

// TestWriteGitRepos: the explanation names each repository once under
// what covers it: bound read-only, left writable by protect.allow
// (ledger and scan), behind a symlink (ledger and scan), and past the
// compile's bound; nothing at all without repositories.
func TestWriteGitRepos(t *testing.T) {
	var b bytes.Buffer
	writeGitRepos(&b, &facts.Facts{})
	if b.Len() != 0 {
		t.Errorf("no repositories, yet: %q", b.String())
	}
	f := &facts.Facts{Protected: []facts.Protected{
		{Name: ".git/config", Root: "/w", Path: "/w/.git/config"},
		{Name: ".git/hooks", Root: "/w", Path: "/w/.git/hooks"},
		{Name: ".git/config", Root: "/w", Path: "/w/vendor/lib/.git/config", Allowed: true},
		{Name: ".git/hooks", Root: "/w", Path: "/w/l/r/.git/hooks", Symlink: true},
		{Name: ".envrc", Root: "/w", Path: "/w/.envrc"},
		{Name: ".git/config", Root: "/x", Path: "/x/.git/modules/sub/config"},
	}, ProtectedTruncated: []string{"/x"}}
	b.Reset()
	writeGitRepos(&b, f)
	out := b.String()
	for _, want := range []string{
		"  /w:\n    bound read-only while a command runs (config and hooks): .\n",
		"left writable by protect.allow, covered by the ledger and the post-command scan: vendor/lib\n",
		"not bound (a symlink on the way), covered by the ledger and the post-command scan: l/r\n",
		"  /x:\n    bound read-only while a command runs (config and hooks): .git/modules/sub\n    past the compile's bound",
		"every repository a command creates",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, ".envrc") || strings.Count(out, "past the compile's bound") != 1 {
		t.Errorf("a start-up file listed as a repository, or the bound named for /w:\n%s", out)
	}
}
