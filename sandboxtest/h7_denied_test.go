package sandboxtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// testCredentialOutOfReach: a credential variable names a path inside a
// directory that another user owns and that denies search
// (TF_CLI_CONFIG_FILE inside a root-owned 0700 directory, like
// /root/.terraformrc). As an ordinary user, the compile records it as
// denied (not "a special file" that bwrun could never check) and every
// run works: the command cannot read it, as on the host. Once the owner
// makes it readable, the invocation is stale (without that check the
// old invocation would show the file); a recompile masks it. A directory
// of the user's own that denies search is no protection (a chmod away,
// which a sandboxed command can do in its writable directory): the
// compile refuses it, naming the fix. A working directory below the
// denying directory runs read-only in the nearest parent the user can
// enter. As root nothing is denied: the file is examined and masked.
func testCredentialOutOfReach(t *testing.T, f *fixture) {
	if os.Getuid() != 0 {
		t.Skip("needs root to make a directory another user owns (run the suite as root: its user run is the one that counts)")
	}
	foreign := f.expand("{base}/foreign")
	if err := os.Mkdir(foreign, 0o700); err != nil { // root's, whatever the identity
		t.Fatal(err)
	}
	cred := filepath.Join(foreign, "tfrc")
	if err := os.WriteFile(cred, []byte("token = "+f.marker+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"TF_CLI_CONFIG_FILE=" + cred}
	script := `
val cred 'cat {base}/foreign/tfrc'
ok readme 'grep -q readme {proj}/README'
`
	inv, _ := f.compile("", call{env: env})
	wantKind := "denied"
	if f.id.cred == nil {
		wantKind = "file" // root: examined, and masked
	}
	if k := preconditionKind(t, inv, cred); k != wantKind {
		t.Fatalf("precondition of %s: kind %q, want %q", cred, k, wantKind)
	}
	r := f.bwrun(inv, script, call{env: env})
	if f.id.cred == nil {
		f.expect(r, want{"cred": "", "readme": "yes"})
		return
	}
	f.expect(r, want{"cred": "~Permission denied", "readme": "yes"})

	// A working directory below it cannot be entered: commands start,
	// read-only, in the nearest parent the user can enter, not in the
	// directory that denies search (bwrap could not chdir there).
	if err := os.Mkdir(filepath.Join(foreign, "proj"), 0o755); err != nil {
		t.Fatal(err)
	}
	r = f.exec(call{argv: []string{tool("bwpolicy"), "compile", "--cwd", foreign + "/proj", "-o", f.expand("{base}/cwd.json")}})
	f.wantCode(r, 0)
	f.wantStderr(r, "cannot be entered", "[S9]")
	r = f.bwrun(f.expand("{base}/cwd.json"), "val pwd pwd\nok write 'touch x'", call{})
	f.expect(r, want{"pwd": f.base, "write": "no"})

	// The owner opens the directory: on the host the user now reads the
	// file (the control), and the old invocation is refused as stale.
	if err := os.Chmod(foreign, 0o755); err != nil {
		t.Fatal(err)
	}
	r = f.exec(call{argv: []string{"/bin/sh", "-c", prelude + f.expand(script)}})
	f.expect(r, want{"cred": "token = {marker}", "readme": "yes"})
	r = f.bwrun(inv, script, call{env: env})
	f.wantCode(r, 125)
	f.wantStderr(r, "stale", cred)
	inv, _ = f.compile("", call{env: env})
	r = f.bwrun(inv, script, call{env: env})
	f.expect(r, want{"cred": "", "readme": "yes"})

	// A directory of the user's own that denies search: refused.
	locked := f.expand("{proj}/locked")
	f.write(filepath.Join(locked, "tfrc"), "token = "+f.marker+"\n")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	lockedEnv := []string{"TF_CLI_CONFIG_FILE=" + filepath.Join(locked, "tfrc")}
	r = f.exec(call{env: lockedEnv, argv: []string{tool("bwpolicy"), "compile", "-o", f.expand("{base}/locked.json")}})
	f.wantCode(r, 1)
	f.wantStderr(r, "[H7]", "chmod u+x "+locked, "$TF_CLI_CONFIG_FILE")
	if f.hostExists("{base}/locked.json") {
		t.Errorf("a refused compile wrote an invocation")
	}
	// Control: the user regains it with a chmod (so would a command in
	// its writable directory).
	r = f.exec(call{argv: []string{"/bin/sh", "-c", "chmod 700 locked && cat locked/tfrc"}})
	f.wantCode(r, 0)
}

// preconditionKind is the kind an invocation recorded for path ("" when
// it recorded none).
func preconditionKind(t *testing.T, inv, path string) string {
	t.Helper()
	data, err := os.ReadFile(inv)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Preconditions []struct{ Path, Kind string }
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for _, p := range doc.Preconditions {
		if p.Path == path {
			return p.Kind
		}
	}
	return ""
}
