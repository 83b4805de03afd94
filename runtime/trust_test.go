package runtime

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/bwpolicy/bwpolicy/internal/goldentest"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// trustInv is an invocation with args and the writable set their
// read-write binds make.
func trustInv(args ...string) *invocation.Invocation {
	inv := &invocation.Invocation{Format: invocation.Format, Profile: "workspace",
		Bwrap: invocation.Bwrap{Path: "/usr/bin/bwrap", Args: append([]string{"--ro-bind", "/", "/"}, args...)}}
	for i := 0; i+2 < len(inv.Bwrap.Args); i++ {
		if inv.Bwrap.Args[i] == "--bind" {
			inv.Writable = append(inv.Writable, inv.Bwrap.Args[i+2])
		}
	}
	return inv
}

func writeInv(t *testing.T, p string, inv *invocation.Invocation, mode os.FileMode) string {
	t.Helper()
	data, err := json.Marshal(inv)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

func wantTrust(t *testing.T, p, want string) {
	t.Helper()
	_, err := LoadTrusted(p)
	switch {
	case want == "" && err != nil:
		t.Fatalf("%s refused: %v", p, err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Fatalf("%s: got %v, want an error containing %q", p, err, want)
	}
}

func TestLoadTrustedFileModes(t *testing.T) {
	dir := t.TempDir()
	inv := trustInv()
	wantTrust(t, writeInv(t, filepath.Join(dir, "ok.json"), inv, 0o600), "")
	wantTrust(t, writeInv(t, filepath.Join(dir, "readable.json"), inv, 0o644), "")
	wantTrust(t, writeInv(t, filepath.Join(dir, "gw.json"), inv, 0o620), "is writable by group or others (mode 0620)")
	wantTrust(t, writeInv(t, filepath.Join(dir, "ow.json"), inv, 0o602), "is writable by group or others")
	linked := writeInv(t, filepath.Join(dir, "linked.json"), inv, 0o600)
	if err := os.Link(linked, filepath.Join(dir, "other-name.json")); err != nil {
		t.Fatal(err)
	}
	wantTrust(t, linked, "has 2 hard links")
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	wantTrust(t, fifo, "is not a regular file")
	// Directories: a group-writable one lets the file be replaced; a
	// sticky one (like /tmp) does not.
	gw := filepath.Join(dir, "gw")
	p := writeInv(t, filepath.Join(gw, "inv.json"), inv, 0o600)
	os.Chmod(gw, 0o770)
	wantTrust(t, p, "writable by group or others (mode 0770) and not sticky")
	syscall.Chmod(gw, 0o1777)
	wantTrust(t, p, "")
	// A symlink to a good file is refused (issue 26: a command that can
	// write where the link is could re-point it), and so is a symlinked
	// directory on the way or a ".." component.
	link := filepath.Join(dir, "link.json")
	os.Symlink(filepath.Join(dir, "ok.json"), link)
	wantTrust(t, link, "a symbolic link")
	os.Symlink(dir, filepath.Join(dir, "dirlink"))
	wantTrust(t, filepath.Join(dir, "dirlink", "ok.json"), "a symbolic link")
	wantTrust(t, dir+"/gw/../ok.json", "a symbolic link or \"..\"")
	wantTrust(t, filepath.Join(dir, "ok.json"), "")
}

func TestLoadTrustedOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give files to another user")
	}
	dir := t.TempDir()
	p := writeInv(t, filepath.Join(dir, "inv.json"), trustInv(), 0o644)
	os.Chown(p, 65534, 65534)
	wantTrust(t, p, "is owned by uid 65534, neither the caller (uid 0) nor root")
	sub := filepath.Join(dir, "sub")
	q := writeInv(t, filepath.Join(sub, "inv.json"), trustInv(), 0o644)
	os.Chown(sub, 65534, 65534)
	wantTrust(t, q, "directory "+sub+", which holds invocation "+q+", is owned by uid 65534")
}

func TestLoadTrustedWritableSet(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	os.MkdirAll(filepath.Join(proj, "a"), 0o700)
	bind := []string{"--bind", proj, proj}

	// In the working directory, or below it: refused.
	wantTrust(t, writeInv(t, filepath.Join(proj, "inv.json"), trustInv(bind...), 0o600), "lies inside the sandbox's writable set")
	wantTrust(t, writeInv(t, filepath.Join(proj, "a", "b", "inv.json"), trustInv(bind...), 0o600), "lies inside the sandbox's writable set")
	// Outside it: fine.
	wantTrust(t, writeInv(t, filepath.Join(dir, "inv.json"), trustInv(bind...), 0o600), "")

	// Below a mask (the Hermes home inside a working directory that is the
	// home): the sandbox sees an empty tmpfs there and cannot rename it.
	hermes := filepath.Join(proj, ".hermes")
	masked := trustInv(append(bind, "--tmpfs", hermes)...)
	wantTrust(t, writeInv(t, filepath.Join(hermes, "sandboxes", "bwrap-1", "inv.json"), masked, 0o600), "")
	// A bind after the mask brings the file back writable: refused.
	back := trustInv(append(bind, "--tmpfs", hermes, "--bind", filepath.Join(hermes, "sandboxes"), filepath.Join(hermes, "sandboxes"))...)
	wantTrust(t, writeInv(t, filepath.Join(hermes, "sandboxes", "bwrap-2", "inv.json"), back, 0o600), "lies inside the sandbox's writable set")
	// ... read-only at its own place: fine.
	ro := trustInv(append(bind, "--tmpfs", hermes, "--ro-bind", filepath.Join(hermes, "sandboxes"), filepath.Join(hermes, "sandboxes"))...)
	wantTrust(t, writeInv(t, filepath.Join(hermes, "sandboxes", "bwrap-3", "inv.json"), ro, 0o600), "")

	// A mask deeper down leaves the directories above it renamable,
	// unless each is pinned (a mount point).
	deep := filepath.Join(proj, "a", ".hermes")
	unpinned := trustInv(append(bind, "--tmpfs", deep)...)
	wantTrust(t, writeInv(t, filepath.Join(deep, "inv.json"), unpinned, 0o600), "lies below "+filepath.Join(proj, "a")+", which a command could rename")
	pinned := trustInv(append(bind, "--bind", filepath.Join(proj, "a"), filepath.Join(proj, "a"), "--tmpfs", deep)...)
	wantTrust(t, writeInv(t, filepath.Join(deep, "inv2.json"), pinned, 0o600), "")

	// The file itself bound read-write elsewhere.
	self := filepath.Join(dir, "self.json")
	wantTrust(t, writeInv(t, self, trustInv("--bind", self, "/inv.json"), 0o600), "lies inside the sandbox's writable set")

	// The working directory named through a symlink: the same directory
	// by another name is refused.
	alias := filepath.Join(dir, "alias")
	os.Symlink(proj, alias)
	wantTrust(t, writeInv(t, filepath.Join(proj, "via-alias.json"), trustInv("--bind", alias, alias), 0o600), "which the sandbox can write as "+alias)
}

// BenchmarkLoadTrusted: reading a typical invocation with every file
// check, against Load.
func BenchmarkLoadTrusted(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(goldentest.Dir(b), "R7_cwd_home.json"))
	if err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(b.TempDir(), "inv.json")
	os.WriteFile(p, data, 0o600)
	b.Run("Load", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := invocation.Load(p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("LoadTrusted", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := LoadTrusted(p); err != nil {
				b.Fatal(err)
			}
		}
	})
}
