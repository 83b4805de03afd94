package sandboxtest

import (
	"os"
	"os/user"
	"path/filepath"
	"testing"
)

// H10: the user's home in the password database holds the credentials,
// whatever HOME says. With HOME naming the fixture's home, the real home
// (/root, /home/bwtest) is hidden whole: a marker file there cannot be
// read. With HOME unset, the real home is HOME and its layout applies:
// a dot entry that is not allowed is absent. Controls: the first
// invocation without the mask over the real home (bwrun would refuse
// an edited invocation's explanation rows; withoutArgs drops them), and
// the denylist layout with HOME unset, show the marker.
func testPasswdHome(t *testing.T, f *fixture) {
	u, err := user.Lookup(f.id.login)
	if err != nil || u.HomeDir == "" || u.HomeDir == "/" {
		t.Fatalf("the identity %s has no home in the password database: %v", f.id.login, err)
	}
	ph := u.HomeDir
	if fi, err := os.Stat(ph); err != nil || !fi.IsDir() {
		t.Fatalf("the password database's home %s is no directory: %v", ph, err)
	}
	plain := filepath.Join(ph, "bwpolicy-sbx-"+f.tag)
	dot := filepath.Join(ph, ".bwpolicy-sbx-"+f.tag)
	for _, p := range []string{plain, dot} {
		f.write(p, f.marker)
		if f.id.uid != 0 {
			os.Chown(p, f.id.uid, f.id.uid)
		}
		t.Cleanup(func() { os.Remove(p) })
	}
	read := func(p string) string { return "cat " + p + " >/dev/null 2>&1 && echo READ; true" }

	// HOME elsewhere: the real home is masked whole.
	inv, _ := f.compile("", call{})
	r := f.exec(call{argv: []string{tool("bwrun"), inv, "--", "/bin/sh", "-c", read(plain)}})
	f.wantCode(r, 0)
	if r.stdout != "" {
		t.Errorf("the password database's home %s was readable with HOME elsewhere: %v", ph, r)
	}
	bare := f.withoutArgs(f.withoutArgs(inv, "--size", "16384", "--tmpfs", ph), "--remount-ro", ph)
	r = f.exec(call{argv: append(append([]string{bwrapPath}, rawArgs(t, bare)...), "--", "/bin/sh", "-c", read(plain))})
	if r.stdout != "READ\n" {
		t.Errorf("control: without the mask the marker in %s was not readable: %v", ph, r)
	}

	// HOME unset: the real home is HOME, laid out.
	inv, _ = f.compile("", call{env: []string{"-HOME"}})
	r = f.exec(call{argv: []string{tool("bwrun"), inv, "--", "/bin/sh", "-c", read(dot)}, env: []string{"-HOME"}})
	f.wantCode(r, 0)
	if r.stdout != "" {
		t.Errorf("with HOME unset, a dot entry of %s that is not allowed was readable: %v", ph, r)
	}
	f.noMarker(r)
	// Control: the denylist layout over the same home shows an unknown
	// dot entry (only the allowlist layout leaves it out).
	inv, _ = f.compile(denylist, call{env: []string{"-HOME"}})
	r = f.exec(call{argv: []string{tool("bwrun"), inv, "--", "/bin/sh", "-c", read(dot)}, env: []string{"-HOME"}})
	if r.code != 0 || r.stdout != "READ\n" {
		t.Errorf("control: under the denylist layout the dot entry of %s was not readable: %v", ph, r)
	}
}
