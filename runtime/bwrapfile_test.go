package runtime

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime/hostprobe"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// TestCheckBwrapRefuses: the bwrap binary must be a regular ELF
// executable owned by root or the caller, not writable by group or
// others, the file the compile recorded, and outside the writable set.
func TestCheckBwrapRefuses(t *testing.T) {
	bw, err := hostprobe.FindBwrap()
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	elf, err := os.ReadFile(bw)
	if err != nil {
		t.Fatal(err)
	}
	file := func(name string, data []byte, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		return p
	}
	check := func(p string, record bool, args ...string) error {
		inv := &invocation.Invocation{Bwrap: invocation.Bwrap{Path: p, Args: append([]string{"--ro-bind", "/", "/"}, args...)}}
		if record {
			inv.Bwrap.Identity, _ = hostprobe.StatIdentity(p)
		}
		return CheckBwrap(inv)
	}
	want := func(err error, sub string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), sub) {
			t.Fatalf("got %v, want an error containing %q", err, sub)
		}
	}
	if err := check(bw, true); err != nil {
		t.Fatalf("the real bwrap: %v", err)
	}
	want(check(file("wrapper.sh", []byte("#!/bin/sh\nexec bwrap \"$@\"\n"), 0o755), true), "is not an ELF executable")
	want(check(file("gw", elf, 0o775), true), "is writable by group or others")
	want(check(file("noexec", elf, 0o644), true), "is not executable")
	want(check(filepath.Dir(bw), true), "is not a regular file")
	own := file("own", elf, 0o755)
	if err := check(own, true); err != nil {
		t.Fatalf("a copy owned by the caller, recorded: %v", err)
	}
	want(check(own, false), "records no identity for bwrap")
	var stale *StaleError
	inv := &invocation.Invocation{Bwrap: invocation.Bwrap{Path: own, Args: []string{"--ro-bind", "/", "/"}}}
	inv.Bwrap.Identity, _ = hostprobe.StatIdentity(bw)
	if err := CheckBwrap(inv); !errors.As(err, &stale) || !strings.Contains(err.Error(), "not the bwrap binary the invocation was compiled for") {
		t.Fatalf("another file than the one recorded: got %v, want a *StaleError", err)
	}
	want(check(own, true, "--bind", dir, dir), "lies in the sandbox's writable set")
	if os.Geteuid() == 0 {
		os.Chown(own, 65534, 65534)
		want(check(own, true), "is owned by uid 65534, neither root nor the caller")
	}
}
