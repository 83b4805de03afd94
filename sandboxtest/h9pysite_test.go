package sandboxtest

import (
	"os"
	"strings"
	"testing"
)

// pySite is the profile home's user site directory of the host's
// /usr/bin/python3 (3.11 on the test machines; pysiteVersion asks it).
const pySite = "{hermes}/home/.local/lib/python{v}/site-packages"

// pysitePlant plants, inside the sandbox with HOME the profile home,
// what every later python (and npm) runs at start, in the variants a
// review tries, and what pip install --user legitimately writes. {m} is
// the marker path the planted code creates.
const pysitePlant = `
ok pth 'printf "import os; open(\"{m}\", \"a\").close()\n" > "$SITE/evil.pth"'
ok pth_indented 'printf "/nowhere\n   import os; open(\"{m}\", \"a\").close()\n" > "$SITE/indented.pth"'
ok usercustomize 'printf "open(\"{m}\", \"a\").close()\n" > "$SITE/usercustomize.py"'
ok pth_renamed 'printf "import os; open(\"{m}\", \"a\").close()\n" > "$SITE/notes.txt" && mv "$SITE/notes.txt" "$SITE/zz-renamed.pth"'
ok other_version 'mkdir -p "$HOME/.local/lib64/python3.99/site-packages" && printf "import os\n" > "$HOME/.local/lib64/python3.99/site-packages/x.pth"'
ok npmrc 'printf "script-shell=/bin/sh -c \"touch {m}\"\nnode-options=--require {m}.js\n" > "$HOME/.npmrc"'
ok kube 'mkdir -p "$HOME/.kube" && printf "users:\n- user: {exec: {command: /bin/touch, args: [{m}]}}\n" > "$HOME/.kube/config"'
ok user_unit 'mkdir -p "$HOME/.config/systemd/user" && printf "[Service]\nExecStart=/bin/touch {m}\n" > "$HOME/.config/systemd/user/x.service"'
ok path_pth 'echo "$HOME/src" > "$SITE/paths.pth"'
ok path_to_customize 'mkdir -p "$HOME/added" && printf "open(\"{m}\", \"a\").close()\n" > "$HOME/added/usercustomize.py" && echo "$HOME/added" > "$SITE/adds.pth"'
ok package 'mkdir -p "$SITE/mypkg" && echo "x = 1" > "$SITE/mypkg/__init__.py"'
ok users_hook_write 'echo "import os" >> "$SITE/users-hook.pth"'
`

// H9 (the profile home, issue #10 §2): with home_mode: profile, a python
// start-up hook a command plants in the profile home's user site
// directory (a .pth file with a code line, indented, created through a
// rename, in another version's lib64 directory; usercustomize.py, also
// in a directory a path-only .pth adds), a ~/.npmrc, a ~/.kube/config
// and a user unit below a ~/.config that did not exist when compiling
// (recorded since this change: before, only the new parent made the
// invocation stale, and the recompile bound the planted unit as the
// user's) are set aside after the command, so neither the next
// command nor a host python with that home runs them; a path-only .pth
// file and a package stay (pip install --user keeps working), and the
// user's existing code .pth is read-only. Control: the same sandbox run
// by bwrap directly (no post-command scan) leaves the hooks, and a host
// python3 runs them.
func testPythonSiteHooks(t *testing.T, f *fixture) {
	v := pysiteVersion(t, f)
	site := f.expand(strings.ReplaceAll(pySite, "{v}", v))
	marker := f.expand("{base}/pysite.ran")
	script := strings.NewReplacer("{m}", marker).Replace(pysitePlant)
	env := []string{"SITE=" + site}
	for _, protected := range []bool{true, false} {
		f.write(site+"/users-hook.pth", "import sys\n")
		f.mkdirAll(f.expand("{hermes}/home/src"))
		inv, _ := f.compile("home_mode: profile\n", call{})
		var r result
		if protected {
			r = f.exec(call{argv: []string{tool("bwrun"), inv, "--", "/bin/sh", "-c", prelude + f.expand(script)}, env: env})
			f.expect(r, want{"pth": "yes", "pth_indented": "yes", "usercustomize": "yes", "pth_renamed": "yes", "other_version": "yes",
				"npmrc": "yes", "kube": "yes", "user_unit": "yes", "path_pth": "yes", "path_to_customize": "yes", "package": "yes", "users_hook_write": "no"})
			f.wantStderr(r, "set aside as", site+"/evil.pth", site+"/usercustomize.py", "{hermes}/home/.npmrc")
		} else {
			r = f.exec(call{argv: append(append([]string{bwrapPath}, rawArgs(t, inv)...), "--", "/bin/sh", "-c", prelude+f.expand(script)),
				env: append(env, "HOME="+f.expand("{hermes}/home"))}) // bwrun sets it from the invocation
			f.wantCode(r, 0)
		}
		if f.hostExists(marker) {
			t.Fatalf("the planted code ran inside the sandbox already: %v", r)
		}
		// The next command (recompiled) and a host python with the profile home.
		if protected {
			f.wantCode(f.exec(call{argv: []string{tool("bwrun"), inv, "--", "/bin/true"}}), 125)
			inv, _ = f.compile("home_mode: profile\n", call{})
			r = f.exec(call{argv: []string{tool("bwrun"), inv, "--", "/usr/bin/python3", "-c", "import mypkg, sys; print(mypkg.x, [p for p in sys.path if p.endswith('/src')])"}})
			if r.code != 0 || !strings.Contains(r.stdout, "1 ['"+f.expand("{hermes}/home/src")+"']") {
				t.Errorf("the package or the path-only .pth did not stay usable: %v", r)
			}
		}
		r = f.exec(call{argv: []string{"/usr/bin/python3", "-c", "pass"}, env: []string{"HOME=" + f.expand("{hermes}/home")}})
		ran := f.hostExists(marker)
		switch {
		case protected && ran:
			t.Errorf("a later python ran what a command planted in the profile home's user site: %v", r)
		case !protected && !ran:
			t.Errorf("control: host python did not run the planted hooks: %v", r)
		}
		for _, p := range []string{site + "/evil.pth", site + "/indented.pth", site + "/usercustomize.py", site + "/zz-renamed.pth", "{hermes}/home/.npmrc", "{hermes}/home/.local/lib64/python3.99/site-packages/x.pth", "{hermes}/home/added/usercustomize.py", "{hermes}/home/.kube/config", "{hermes}/home/.config/systemd/user"} {
			if left := f.hostExists(p); left == protected {
				t.Errorf("%s left in place: %v (protected %v)", f.expand(p), left, protected)
			}
		}
		if protected {
			f.wantHostFile(site+"/users-hook.pth", "import sys\n")
		}
		os.Remove(marker)
		os.RemoveAll(f.expand("{hermes}/home/.local"))
		os.Remove(f.expand("{hermes}/home/.npmrc"))
		os.RemoveAll(f.expand("{hermes}/home/added"))
		os.RemoveAll(f.expand("{hermes}/home/.kube"))
		os.RemoveAll(f.expand("{hermes}/home/.config"))
	}
}

// pysiteVersion is the host python3's X.Y.
func pysiteVersion(t *testing.T, f *fixture) string {
	r := f.exec(call{argv: []string{"/usr/bin/python3", "-c", "import sys; print('%d.%d' % sys.version_info[:2])"}})
	if r.code != 0 {
		t.Skipf("no host python3: %v", r)
	}
	return strings.TrimSpace(r.stdout)
}
