package runtime

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// A sandbox whose first process shares the runtime's pid namespace
// cannot be contained (killing it leaves the command's processes alone):
// refused before the command runs — by the argument check (CheckArgs) and,
// behind it, by the namespace check once bwrap reports its first process.
// Control: the test invocation, which unshares everything, runs.
func TestRefusesSharedPidNamespace(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	shared := []string{"--unshare-user", "--unshare-ipc", "--die-with-parent", "--new-session",
		"--ro-bind", "/", "/", "--bind", filepath.Dir(marker), filepath.Dir(marker), "--dev", "/dev"}
	inv := testInv(t)
	inv.Bwrap.Args = append(append([]string(nil), shared...), "--info-fd", "3", "--block-fd", "4", "--json-status-fd", "5", "--seccomp", "20")
	r := run(t, inv, "sh", "-c", "echo x > "+marker)
	var se *SetupError
	if r.code != ExitSetup || !errors.As(r.err, &se) || !strings.Contains(r.err.Error(), "pid namespace") {
		t.Fatalf("shared pid namespace: %d %v", r.code, r.err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran")
	}
	if r := run(t, testInv(t), "true"); r.code != 0 || r.err != nil {
		t.Fatalf("control: %d %v", r.code, r.err)
	}
}

// Without --info-fd the runtime never learns the sandbox's first process
// and could not kill its namespace: refused.
func TestRefusesWithoutInfoFD(t *testing.T) {
	inv := testInv(t)
	inv.Bwrap.Args = append(append([]string(nil), baseArgs...), "--seccomp", "3", "--json-status-fd", "4")
	inv.FDs = []invocation.FD{{Num: 3, Kind: invocation.FDSeccomp}, {Num: 4, Kind: invocation.FDStatus}}
	inv.Seccomp = &invocation.Seccomp{Program: allowAll}
	r := run(t, inv, "true")
	if r.code != ExitSetup || r.err == nil || !strings.Contains(r.err.Error(), "no --info-fd") {
		t.Fatalf("no info fd: %d %v", r.code, r.err)
	}
}

// The status object always has its arrays (never null) and one line.
func TestStatusJSON(t *testing.T) {
	b := Status{Outcome: OutcomeExited}.JSON()
	if string(b) != `{"outcome":"exited","exit_status":0,"stale_paths":[],"set_aside":[],"warnings":[],"message":""}`+"\n" {
		t.Fatalf("%s", b)
	}
	var back Status
	if err := json.Unmarshal(b, &back); err != nil || back.Outcome != OutcomeExited {
		t.Fatal(err)
	}
}

// stalePaths lists each changed path once, sorted, with new entries of
// listed directories joined to them.
func TestStalePaths(t *testing.T) {
	e := &StaleError{Mismatches: []Mismatch{
		{Precondition: invocation.Precondition{Path: "/h/.kube"}},
		{Precondition: invocation.Precondition{Path: "/h/.aws"}},
		{Precondition: invocation.Precondition{Path: "/h/.kube"}},
		{Precondition: invocation.Precondition{Path: "/h/p"}, NewEntry: "x.pem", Pattern: "*.pem"},
		{EnvVar: "SSH_AUTH_SOCK", EnvPath: "/run/agent.sock"},
	}}
	got := strings.Join(stalePaths(e), " ")
	if got != "/h/.aws /h/.kube /h/p/x.pem /run/agent.sock" {
		t.Fatal(got)
	}
}

// OpenStatus refuses a status file inside the writable set, however it
// is spelled (through a symlinked directory, or with the writable
// directory recorded through a symlink), an existing file and a symlink;
// it creates a new file elsewhere.
func TestOpenStatusFile(t *testing.T) {
	dir := t.TempDir()
	w := filepath.Join(dir, "proj")
	other := filepath.Join(dir, "other")
	for _, d := range []string{w, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(w, filepath.Join(dir, "projlink")))
	must(os.Symlink(filepath.Join(other, "target"), filepath.Join(other, "link")))
	must(os.WriteFile(filepath.Join(other, "exists"), nil, 0o644))
	inv := &invocation.Invocation{Writable: []string{w}}
	viaLink := &invocation.Invocation{Writable: []string{filepath.Join(dir, "projlink")}}
	for _, c := range []struct {
		inv  *invocation.Invocation
		path string
	}{
		{inv, filepath.Join(w, "s.json")},
		{inv, filepath.Join(dir, "projlink", "s.json")},
		{viaLink, filepath.Join(w, "s.json")},
		{inv, filepath.Join(other, "link")},
		{inv, filepath.Join(other, "exists")},
	} {
		if f, err := (RunFlags{StatusFD: -1, StatusFile: c.path}).OpenStatus(c.inv); err == nil {
			f.Close()
			t.Errorf("%s accepted (writable %v)", c.path, c.inv.Writable)
		}
	}
	if _, err := os.Stat(filepath.Join(other, "target")); err == nil {
		t.Error("a file was created through the symlink")
	}
	f, err := (RunFlags{StatusFD: -1, StatusFile: filepath.Join(other, "s.json")}).OpenStatus(inv)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}
