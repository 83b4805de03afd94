package sandboxtest

import (
	"strings"
	"testing"
)

// H9: the variables that move start-up files (ZDOTDIR, XDG_CONFIG_HOME)
// move their protection. With ZDOTDIR={proj}/zdot, the existing .zshrc
// there is read-only and a .zshenv the command creates is set aside;
// with XDG_CONFIG_HOME={base}/xdg and the working directory
// {base}/xdg/systemd, a user unit the command creates is set aside.
// Control: the same commands compiled without the variables leave both
// files on the host.
func testStartupVarsProtected(t *testing.T, f *fixture) {
	f.write(f.expand("{proj}/zdot/.zshrc"), "# zshrc\n")
	f.mkdirAll(f.expand("{base}/xdg/systemd"))
	zenv := []string{"ZDOTDIR=" + f.expand("{proj}/zdot")}
	xenv := []string{"XDG_CONFIG_HOME=" + f.expand("{base}/xdg")}
	for _, control := range []bool{false, true} {
		var ze, xe []string
		if !control {
			ze, xe = zenv, xenv
		}
		inv, _ := f.compile("", call{env: ze})
		r := f.bwrun(inv, `
ok zshrc 'echo "echo EVIL" >> zdot/.zshrc'
ok zshenv 'echo "echo EVIL" > zdot/.zshenv'
`, call{env: ze})
		inv2, _ := f.compile("cwd: {base}/xdg/systemd\n", call{dir: "{base}/xdg/systemd", env: xe})
		r2 := f.bwrun(inv2, `ok unit 'mkdir -p user && printf "[Service]\nExecStart=/bin/true\n" > user/x.service'`, call{dir: "{base}/xdg/systemd", env: xe})
		f.expect(r2, want{"unit": "yes"})
		if control {
			f.expect(r, want{"zshrc": "yes", "zshenv": "yes"})
			if !f.hostExists("{proj}/zdot/.zshenv") || !f.hostExists("{base}/xdg/systemd/user/x.service") {
				t.Errorf("control: the command's files are not on the host")
			}
			continue
		}
		f.expect(r, want{"zshrc": "no", "zshenv": "yes"})
		f.wantHostFile("{proj}/zdot/.zshrc", "# zshrc\n")
		f.wantStderr(r, "set aside as", f.expand("{proj}/zdot/.zshenv"))
		f.wantStderr(r2, "set aside as", f.expand("{base}/xdg/systemd/user"))
		for _, p := range []string{"{proj}/zdot/.zshenv", "{base}/xdg/systemd/user"} {
			if f.hostExists(p) {
				t.Errorf("%s stayed on the host", p)
			}
		}
		f.exec(call{argv: []string{"/bin/sh", "-c", "rm -rf " + strings.Join([]string{f.expand("{proj}/zdot/.zshenv*"), f.expand("{base}/xdg/systemd/user*")}, " ")}})
	}
}
