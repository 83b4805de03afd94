package ledger

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"
)

func write(t *testing.T, p, s string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), mode); err != nil {
		t.Fatal(err)
	}
}

// TestTrusts: a recorded file is trusted while its content is the
// recorded one, whatever its times or inode (a rewrite with the same
// bytes too); a changed byte, a file put in a directory's place, a
// directory renamed into a recorded one's place, a re-pointed link and
// a link whose target changed are not. Nothing unrecorded is trusted.
func TestTrusts(t *testing.T) {
	d := t.TempDir()
	f, dir, link, tgt := filepath.Join(d, "hook"), filepath.Join(d, "hooks"), filepath.Join(d, "link"), filepath.Join(d, "target")
	write(t, f, "#!/bin/sh\n", 0o755)
	write(t, filepath.Join(dir, "x"), "", 0o644)
	write(t, tgt, "a", 0o755)
	os.Symlink(tgt, link)
	l := New()
	for _, p := range []string{f, dir, link} {
		if err := l.Record(p); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{f, dir, link} {
		if !l.Trusts(p) {
			t.Errorf("%s: recorded, unchanged, not trusted", p)
		}
	}
	if l.Trusts(filepath.Join(d, "other")) {
		t.Error("an unrecorded path is trusted")
	}
	// Same bytes, new inode (a copy renamed into place): the content is
	// what is trusted.
	write(t, f+".new", "#!/bin/sh\n", 0o755)
	os.Rename(f+".new", f)
	if !l.Trusts(f) {
		t.Error("the same content under a new inode is not trusted")
	}
	write(t, f, "#!/bin/sh\nevil\n", 0o755)
	if l.Trusts(f) {
		t.Error("changed content is trusted")
	}
	write(t, tgt, "b", 0o755)
	if l.Trusts(link) {
		t.Error("a link whose target changed is trusted")
	}
	write(t, tgt, "a", 0o755)
	if !l.Trusts(link) {
		t.Error("a link whose target is back to what was recorded is not trusted")
	}
	os.Remove(link)
	os.Symlink(f, link)
	if l.Trusts(link) {
		t.Error("a re-pointed link is trusted")
	}
	os.Rename(dir, dir+".old")
	os.Mkdir(dir, 0o755)
	if l.Trusts(dir) {
		t.Error("a directory made in a recorded one's place is trusted")
	}
	os.Remove(dir)
	write(t, dir, "", 0o644)
	if l.Trusts(dir) {
		t.Error("a file in a recorded directory's place is trusted")
	}
}

// TestUntouched: a directory is untouched until an entry is added,
// removed or renamed in it.
func TestUntouched(t *testing.T) {
	d := filepath.Join(t.TempDir(), "wt")
	write(t, filepath.Join(d, "a"), "", 0o644)
	l := New()
	l.Record(d)
	if !l.Untouched(d) {
		t.Fatal("a recorded directory is touched")
	}
	write(t, filepath.Join(d, "a"), "x", 0o644) // a file's content: not the directory's
	if !l.Untouched(d) {
		t.Error("writing a file made its directory touched")
	}
	write(t, filepath.Join(d, "b"), "", 0o644)
	if l.Untouched(d) {
		t.Error("an entry added, the directory is untouched")
	}
}

// TestSaveLoad: a saved ledger loads back with the same judgements; a
// ledger that is a symlink, writable by others, hard-linked or malformed
// does not load.
func TestSaveLoad(t *testing.T) {
	d := t.TempDir()
	f := filepath.Join(d, "w", "a file\nwith \"quotes\"")
	write(t, f, "x", 0o755)
	l := New()
	l.Record(f)
	l.Record(filepath.Dir(f))
	l.AddRoot(filepath.Join(d, "w"), 42)
	p := filepath.Join(d, "inv.json"+Suffix)
	if err := l.Save(p); err != nil {
		t.Fatal(err)
	}
	m, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if m.Len() != 2 || !m.Trusts(f) || !m.Trusts(filepath.Dir(f)) || !m.Covers(filepath.Join(d, "w", "sub")) || m.Covers(d) {
		t.Errorf("loaded: %d entries, roots %+v", m.Len(), m.Roots)
	}
	if at, _ := m.RecordedAt(filepath.Join(d, "w")); at != 42 {
		t.Errorf("root time %d", at)
	}
	if m.Unresolved {
		t.Error("a ledger never marked loaded unresolved")
	}
	m.SetUnresolved(true)
	if !m.Changed || m.Save(p) != nil {
		t.Fatal("marking unresolved did not change the ledger, or it did not save")
	}
	if m, err = Load(p); err != nil || !m.Unresolved || m.Len() != 2 {
		t.Errorf("the unresolved mark did not load back (%v)", err)
	}
	link := filepath.Join(d, "link")
	os.Symlink(p, link)
	if _, err := Load(link); err == nil {
		t.Error("a symlinked ledger loaded")
	}
	os.Chmod(p, 0o666)
	if _, err := Load(p); err == nil {
		t.Error("a ledger writable by others loaded")
	}
	os.Chmod(p, 0o600)
	os.Link(p, p+".2")
	if _, err := Load(p); err == nil {
		t.Error("a hard-linked ledger loaded")
	}
	os.Remove(p + ".2")
	for _, bad := range []string{"", "other\n", header + "\ne 1 0 1 2 3 4 5 6 7 8 zz \"/x\"\n", header + "\nroot x \"/a\"\n", header + "\ne 1 0 1 2 3 4 5 6 7 8 " + string(make([]byte, 0)) + "\n"} {
		os.WriteFile(p, []byte(bad), 0o600)
		if _, err := Load(p); err == nil {
			t.Errorf("%q loaded", bad)
		}
	}
}

// TestDigest: a file recorded by a digest is trusted while the digest
// is the same (an edit it leaves out is no change), not once it
// differs, and loads back as a Config entry; an entry recorded by its
// whole content is judged by it even when asked by digest.
func TestDigest(t *testing.T) {
	d := t.TempDir()
	f := filepath.Join(d, "config")
	write(t, f, "keep\nother 1\n", 0o644)
	firstLine := func(b []byte) [32]byte {
		line, _, _ := bytes.Cut(b, []byte("\n"))
		return sha256.Sum256(line)
	}
	l := New()
	if err := l.RecordDigest(f, firstLine); err != nil {
		t.Fatal(err)
	}
	write(t, f, "keep\nother 2\n", 0o644)
	if !l.TrustsDigest(f, firstLine) {
		t.Error("an edit the digest leaves out made the file untrusted")
	}
	p := filepath.Join(d, "inv"+Suffix)
	if err := l.Save(p); err != nil {
		t.Fatal(err)
	}
	m, err := Load(p)
	if err != nil || !m.TrustsDigest(f, firstLine) {
		t.Fatalf("the Config entry did not load back (%v)", err)
	}
	write(t, f, "changed\nother 2\n", 0o644)
	if m.TrustsDigest(f, firstLine) {
		t.Error("a changed digest is trusted")
	}
	g := filepath.Join(d, "whole")
	write(t, g, "keep\nother 1\n", 0o644)
	m.Record(g)
	write(t, g, "keep\nother 22\n", 0o644) // another size: a ctime may not move within a tick
	if m.TrustsDigest(g, firstLine) {
		t.Error("an entry recorded by its whole content was judged by the digest")
	}
}
