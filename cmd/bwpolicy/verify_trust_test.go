package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime/hostprobe"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// TestVerifyHandEdited: `bwpolicy verify` reports the hand edits bwrun
// refuses: a wrapper script or another program as bwrap.path, an extra
// writable bind, a missing --unshare-all, a group-writable file. The
// untampered invocation, compiled for this host, verifies.
func TestVerifyHandEdited(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	os.Mkdir(proj, 0o755)
	orig := filepath.Join(dir, "inv.json")
	if r := run(t, dir, sandboxEnv(t), "compile", "--profile", "workspace", "--cwd", proj, "-o", orig); r.code != 0 {
		t.Fatalf("compile: %s", r)
	}
	if code, out, errs := runVerify(orig); code != exitOK || !strings.Contains(out, "bwrap-binary, invocation-file") {
		t.Fatalf("untampered: exit %d\n%s%s", code, out, errs)
	}
	data, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	wrapper := filepath.Join(dir, "bwrap-wrapper.sh")
	os.WriteFile(wrapper, []byte("#!/bin/sh\ntouch "+filepath.Join(dir, "wrapper-ran")+"\nexec \"$@\"\n"), 0o755)
	identity := func(p string) invocation.FileIdentity {
		id, err := hostprobe.StatIdentity(p)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	cases := []struct {
		name string
		edit func(inv *invocation.Invocation)
		mode os.FileMode
		want string
	}{
		{"wrapper script", func(inv *invocation.Invocation) {
			inv.Bwrap.Path, inv.Bwrap.Identity = wrapper, identity(wrapper)
		}, 0o600, "bwrap-binary: " + wrapper + ": bwrap at " + wrapper + " is not an ELF executable"},
		{"env with --chdir", func(inv *invocation.Invocation) {
			inv.Bwrap.Path, inv.Bwrap.Identity = "/usr/bin/env", identity("/usr/bin/env")
			inv.Bwrap.Args = []string{"--chdir", proj}
			inv.FDs, inv.Rlimits = nil, invocation.Rlimits{}
		}, 0o600, "namespaces: --unshare-all: missing"},
		{"env, bwrap's identity", func(inv *invocation.Invocation) {
			inv.Bwrap.Path = "/usr/bin/env"
		}, 0o600, "/usr/bin/env (bwrap): not the bwrap binary the invocation was compiled for"},
		{"extra bind", func(inv *invocation.Invocation) {
			inv.Bwrap.Args = append(inv.Bwrap.Args, "--bind", "/tmp/x", "/tmp/x")
		}, 0o600, "writable-set: /tmp/x: --bind /tmp/x /tmp/x"},
		{"no --unshare-all", func(inv *invocation.Invocation) {
			i := slices.Index(inv.Bwrap.Args, "--unshare-all")
			inv.Bwrap.Args = slices.Delete(inv.Bwrap.Args, i, i+1)
		}, 0o600, "namespaces: --unshare-all: missing"},
		{"group-writable file", func(*invocation.Invocation) {}, 0o620, "invocation-file: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var inv invocation.Invocation
			if err := json.Unmarshal(data, &inv); err != nil {
				t.Fatal(err)
			}
			c.edit(&inv)
			b, _ := json.Marshal(&inv)
			p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".json")
			if err := os.WriteFile(p, b, c.mode); err != nil {
				t.Fatal(err)
			}
			os.Chmod(p, c.mode)
			code, out, errs := runVerify(p)
			if code != exitFound || !strings.Contains(out, c.want) {
				t.Fatalf("exit %d, want 1 and %q\nstdout: %s\nstderr: %s", code, c.want, out, errs)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "wrapper-ran")); err == nil {
		t.Fatal("verify ran the wrapper")
	}
}
