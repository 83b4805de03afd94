package sandboxtest

import (
	"os"
	"strings"
	"testing"
)

// H10/R10 (issue 30 §5): configurations Hermes' backend accepts. A bind
// of ~/.sshfs (a sibling of ~/.ssh, on no allowlist) at its own path
// shows it, while ~/.ssh beside it stays absent. A bind given only a
// source that is a symlink (~/models -> {base}/data, read-write) is
// mounted at the link's target, resolved at compile: a write lands in
// the target, and re-pointing the link on the host makes the invocation
// stale (125, naming the link) rather than following it. Control: bwrap
// alone, given the link as a source, follows the new target. A bind of
// all of ~/.config replaces the layout's tmpfs there: ~/.config/app.conf
// (which the layout would leave out) reads, while ~/.config/gcloud and
// ~/.config/gh below it stay masked; control: the same bind by bwrap
// alone shows gcloud's credentials.
func testBindsHermesAccepts(t *testing.T, f *fixture) {
	r := f.sandbox("binds:\n  - {src: ~/.config}\n", `
val app 'cat {home}/.config/app.conf'
val gcloud 'cat {home}/.config/gcloud/credentials.db'
val gh 'cat {home}/.config/gh/hosts.yml'
`, call{})
	f.expect(r, want{"app": "app-config", "gcloud": absent, "gh": absent})
	cfg := f.expand("{home}/.config")
	c := f.exec(call{argv: []string{bwrapPath, "--ro-bind", "/", "/", "--ro-bind", cfg, cfg, "--dev", "/dev", "--proc", "/proc",
		"--unshare-all", "/bin/cat", cfg + "/gcloud/credentials.db"}})
	if !strings.Contains(c.stdout, "SECRET") {
		t.Errorf("control: bwrap's bind of ~/.config did not show gcloud's credentials: %v", c)
	}

	f.write(f.expand("{home}/.sshfs/host1/readme"), "mounted\n")
	f.symlink("{base}/data", "{home}/models")
	inv, _ := f.compile("binds:\n  - {src: ~/.sshfs}\n  - {src: ~/models, readonly: false}\n", call{})
	r = f.bwrun(inv, `
val sshfs 'cat {home}/.sshfs/host1/readme'
val ssh 'ls -A {home}/.ssh'
ok models_write 'echo m > {home}/models/new.txt'
`, call{})
	f.expect(r, want{"sshfs": "mounted", "ssh": absent, "models_write": "yes"})
	f.wantHostFile("{base}/data/new.txt", "m\n")

	// The link re-pointed on the host after the compile: stale.
	f.mkdirAll(f.expand("{base}/other"))
	if err := os.Remove(f.expand("{home}/models")); err != nil {
		t.Fatal(err)
	}
	f.symlink("{base}/other", "{home}/models")
	r = f.exec(call{argv: []string{tool("bwrun"), inv, "--", "/bin/sh", "-c", "echo x > {home}/models/after.txt"}})
	f.wantCode(r, 125)
	f.wantStderr(r, "{home}/models", "recompile")
	f.wantHostAbsent("{base}/other/after.txt")
	f.wantHostAbsent("{base}/data/after.txt")

	// Control: bwrap given the link as a bind source follows its new
	// target at every start.
	link, mnt := f.expand("{home}/models"), f.expand("{base}/mnt")
	c = f.exec(call{argv: []string{bwrapPath, "--ro-bind", "/", "/", "--bind", link, mnt, "--dev", "/dev", "--proc", "/proc",
		"--unshare-all", "/bin/sh", "-c", "echo x > " + mnt + "/after.txt"}})
	f.wantCode(c, 0)
	f.wantHostFile("{base}/other/after.txt", "x\n")
}
