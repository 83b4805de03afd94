package git

import "testing"

// TestConfigDigest: edits of keys that run nothing keep a configuration's
// digest; a code key or include added or changed, a code key's
// spelling that git reads the same, and an unparsable file follow
// their rules.
func TestConfigDigest(t *testing.T) {
	base := "[core]\n\trepositoryformatversion = 0\n\thooksPath = .githooks\n[remote \"origin\"]\n\turl = https://example.com/r.git\n"
	d := ConfigDigest([]byte(base))
	same := map[string]string{
		"user.name added":      base + "[user]\n\tname = x\n",
		"remote url changed":   "[core]\n\trepositoryformatversion = 0\n\thooksPath = .githooks\n[remote \"origin\"]\n\turl = https://example.com/other.git\n",
		"comment and blanks":   "# mine\n\n" + base,
		"key case, as git":     "[CORE]\n\trepositoryformatversion = 0\n\tHOOKSPATH = .githooks\n[remote \"origin\"]\n\turl = https://example.com/r.git\n",
		"quoted value, as git": "[core]\n\trepositoryformatversion = 0\n\thooksPath = \".githooks\"\n[remote \"origin\"]\n\turl = https://example.com/r.git\n",
	}
	for name, c := range same {
		if ConfigDigest([]byte(c)) != d {
			t.Errorf("%s: the digest changed", name)
		}
	}
	differ := map[string]string{
		"fsmonitor added":   base + "[core]\n\tfsmonitor = touch /tmp/x\n",
		"include added":     base + "[include]\n\tpath = ../x\n",
		"includeIf added":   base + "[includeIf \"gitdir:~/\"]\n\tpath = ../x\n",
		"hooksPath changed": "[core]\n\trepositoryformatversion = 0\n\thooksPath = evil\n",
		"hooksPath removed": "[core]\n\trepositoryformatversion = 0\n",
		"worktree added":    base + "[core]\n\tworktree = /home/u\n",
		"ext:: url":         base + "[remote \"x\"]\n\turl = ext::sh -c touch% /tmp/x\n",
		"unparsable":        base + "[core\n",
		"boolean code key":  base + "[alias]\n\tx\n",
	}
	for name, c := range differ {
		if ConfigDigest([]byte(c)) == d {
			t.Errorf("%s: the digest did not change", name)
		}
	}
	// Unparsable: by whole content, any byte counts.
	bad := base + "[core\n"
	if ConfigDigest([]byte(bad)) == ConfigDigest([]byte(bad+"# x\n")) {
		t.Error("an unparsable file's digest ignores a change")
	}
	if first, again := ConfigDigest([]byte(bad)), ConfigDigest([]byte(bad)); first != again {
		t.Error("the digest is not deterministic")
	}
}
