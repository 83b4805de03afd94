package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/hazard/git"
	bwruntime "github.com/bwpolicy/bwpolicy/runtime"
	"github.com/bwpolicy/bwpolicy/runtime/ledger"
	"github.com/bwpolicy/bwpolicy/runtime/scan"
)

// TestCompileDeterministic (issue 26): two compiles of the same settings
// on the same host are byte-identical: the invocation holds no time.
func TestCompileDeterministic(t *testing.T) {
	dir := t.TempDir()
	env := sandboxEnv(t)
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	for _, out := range []string{a, b} {
		if r := run(t, dir, env, "compile", "-o", out); r.code != 0 {
			t.Fatalf("compile: %d\n%s", r.code, r.stderr)
		}
	}
	x, _ := os.ReadFile(a)
	y, _ := os.ReadFile(b)
	if len(x) == 0 || !bytes.Equal(x, y) {
		t.Fatalf("two compiles differ (%d and %d bytes)", len(x), len(y))
	}
	if bytes.Contains(x, []byte("git_scan_since")) {
		t.Error("the invocation still holds git_scan_since")
	}
}

// TestTrust: `bwpolicy trust INVOCATION PATH` records PATH as it is in
// the ledger beside the invocation; --list shows it; a later change of
// the file is not trusted. An invocation through a symlink is refused.
func TestTrust(t *testing.T) {
	dir := t.TempDir()
	env := sandboxEnv(t)
	inv := filepath.Join(dir, "inv.json")
	proj := filepath.Join(dir, "proj")
	os.MkdirAll(proj, 0o755)
	if r := run(t, proj, env, "compile", "--cwd", proj, "-o", inv); r.code != 0 {
		t.Fatalf("compile: %d\n%s", r.code, r.stderr)
	}
	hooks := filepath.Join(proj, "repo", ".git", "hooks")
	os.MkdirAll(hooks, 0o755)
	hook := filepath.Join(hooks, "pre-commit")
	os.WriteFile(hook, []byte("#!/bin/sh\n"), 0o755)
	r := run(t, dir, env, "trust", inv, hook, filepath.Dir(hooks))
	if r.code != 0 || !strings.Contains(r.stdout, "trusted "+hook) {
		t.Fatalf("trust: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	led, err := bwruntime.LoadLedger(inv)
	if err != nil || !led.Trusts(hook) || !led.Trusts(hooks) {
		t.Fatalf("ledger after trust: %v, trusts hook %v", err, led != nil && led.Trusts(hook))
	}
	r = run(t, dir, env, "trust", "--list", inv)
	if r.code != 0 || !strings.Contains(r.stdout, hook+"\n") {
		t.Errorf("--list: %d\n%s", r.code, r.stdout)
	}
	if strings.Contains(r.stdout, "unresolved") {
		t.Errorf("--list of a resolved ledger: %s", r.stdout)
	}
	led.SetUnresolved(true)
	led.Save(inv + ledger.Suffix)
	if r := run(t, dir, env, "trust", "--list", inv); !strings.HasPrefix(r.stdout, "unresolved: ") {
		t.Errorf("--list of an unresolved ledger: %s", r.stdout)
	}
	os.WriteFile(hook, []byte("#!/bin/sh\nevil\n"), 0o755)
	if led, _ := bwruntime.LoadLedger(inv); led.Trusts(hook) {
		t.Error("a changed hook is trusted")
	}
	// A git configuration with a code key is held by its code-bearing
	// entries, as the scan judges it: the user's later edit of another
	// key keeps it trusted, a code key added does not.
	cfg := filepath.Join(proj, "repo", ".git", "config")
	os.WriteFile(cfg, []byte("[core]\n\thooksPath = .githooks\n"), 0o644)
	if r := run(t, dir, env, "trust", inv, cfg); r.code != 0 {
		t.Fatalf("trust config: %d\n%s", r.code, r.stderr)
	}
	os.WriteFile(cfg, []byte("[core]\n\thooksPath = .githooks\n[user]\n\tname = me\n"), 0o644)
	if led, _ := bwruntime.LoadLedger(inv); !led.TrustsDigest(cfg, git.ConfigDigest) {
		t.Error("a trusted config is no longer trusted after an edit of user.name")
	}
	os.WriteFile(cfg, []byte("[core]\n\thooksPath = .githooks\n[user]\n\tname = me\n[core]\n\tfsmonitor = x\n"), 0o644)
	if led, _ := bwruntime.LoadLedger(inv); led.TrustsDigest(cfg, git.ConfigDigest) {
		t.Error("a trusted config is still trusted after a code key was added")
	}
	link := filepath.Join(dir, "link.json")
	os.Symlink(inv, link)
	if r := run(t, dir, env, "trust", link, hook); r.code == 0 || !strings.Contains(r.stderr, "symbolic link") {
		t.Errorf("trust through a symlinked invocation: %d\n%s", r.code, r.stderr)
	}
	if r := run(t, dir, env, "trust", inv); r.code != exitUsage {
		t.Errorf("trust without PATH: %d", r.code)
	}
}

// TestCompileFinishesPendingScan (issue 26): a journal entry a killed
// bwrun left beside -o FILE is scanned before the compile replaces FILE:
// the hook the command planted is set aside, and the entry is gone.
func TestCompileFinishesPendingScan(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed")
	}
	dir := t.TempDir()
	env := sandboxEnv(t)
	proj := filepath.Join(dir, "proj")
	os.MkdirAll(proj, 0o755)
	inv := filepath.Join(dir, "inv.json")
	if r := run(t, proj, env, "compile", "--cwd", proj, "-o", inv); r.code != 0 {
		t.Fatalf("compile: %d\n%s", r.code, r.stderr)
	}
	data, _ := os.ReadFile(inv)
	// A ledger recorded before the command, then the command's plant,
	// then the run dies holding its journal entry.
	loaded, _ := bwruntime.LoadTrusted(inv)
	led := ledger.New()
	scan.RecordLedgerIndexed(loaded, os.Getenv("HOME"), led, func() *ledger.Index { return nil })
	if err := led.Save(inv + ledger.Suffix); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "init", "-q", filepath.Join(proj, "r"))
	cmd.Env = []string{"HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "PATH=/usr/bin:/bin"}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	hook := filepath.Join(proj, "r", ".git", "hooks", "post-checkout")
	os.WriteFile(hook, []byte("#!/bin/sh\ntouch /tmp/pwned\n"), 0o755)
	mark := inv + ledger.PendingInfix + "1-dead"
	if err := os.WriteFile(mark, data, 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, proj, env, "compile", "--cwd", proj, "-o", inv)
	if r.code != 0 {
		t.Fatalf("compile: %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Lstat(hook); err == nil {
		t.Errorf("the planted hook is still in place; stderr:\n%s", r.stderr)
	}
	if _, err := os.Lstat(mark); err == nil {
		t.Error("the journal entry is still there")
	}
	if !strings.Contains(r.stderr, "did not finish its scan") {
		t.Errorf("no warning:\n%s", r.stderr)
	}
}
