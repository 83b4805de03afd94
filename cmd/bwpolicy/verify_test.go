package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/internal/goldentest"
)

func runVerify(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := mainCode(append([]string{"verify"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func TestVerifyGolden(t *testing.T) {
	code, out, errs := runVerify("--host=false", filepath.Join(goldentest.Dir(t), "R7_cwd_home.json"))
	if code != exitOK || !strings.Contains(out, "verified") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
}

func TestVerifyView(t *testing.T) {
	code, out, _ := runVerify("--view", "--host=false", filepath.Join(goldentest.Dir(t), "R7_cwd_home.json"))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, out)
	}
	for _, want := range []string{"/home/u/dotfiles/keys/aws", "[hidden, tmpfs, read-only, at most 16 KiB]", "[writable, pin]", "S7", "verified"} {
		if !strings.Contains(out, want) {
			t.Errorf("--view output lacks %q:\n%s", want, out)
		}
	}
}

// An invocation the runtime refuses (compiled without bwrap) still has a
// sandbox to verify.
func TestVerifyWithoutBwrap(t *testing.T) {
	code, out, errs := runVerify("--host=false", filepath.Join(goldentest.Dir(t), "no_bwrap_old_kernel.json"))
	if code != exitOK || !strings.Contains(errs, "runtime refuses") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
}

func TestVerifyViolation(t *testing.T) {
	data, err := os.ReadFile("../../golden/profile_workspace.json")
	if err != nil {
		t.Fatal(err)
	}
	// The workspace profile has no network: sharing it is a violation.
	bad := strings.Replace(string(data), `"--unshare-all",`, `"--unshare-all", "--share-net",`, 1)
	file := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(file, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runVerify(file)
	if code != exitFound || !strings.Contains(out, "namespaces: --share-net: ") {
		t.Fatalf("exit %d: %s", code, out)
	}
}

func TestVerifyUsage(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.json")
	os.WriteFile(garbage, []byte(`{"format": "bwpolicy.invocation/v1", "nope": 1}`), 0o644)
	for _, args := range [][]string{
		{},
		{"a.json", "b.json"},
		{"--bogus", "a.json"},
		{filepath.Join(dir, "missing.json")},
		{garbage},
	} {
		if code, out, errs := runVerify(args...); code != exitUsage {
			t.Errorf("verify %q: exit %d, want 2\nstdout: %s\nstderr: %s", args, code, out, errs)
		}
	}
}
