package sandboxtest

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// S6/H10, configurations and timings from the end of Hermes'
// test_bubblewrap_secrets.py, with a sandbox ID:
//   - a hide entry equal to a staged-data root (cache/documents) keeps
//     that root hidden while attachments still read; control: the same
//     settings without the entry read the document;
//   - a hide entry equal to the shared scratch hides its files and leaves
//     the sandbox its own scratch (TMPDIR keeps a file);
//   - entries made in the shared scratch while a command runs (a file
//     and a directory, after every mount of its sandbox is in place) are
//     not visible to it, under network and restricted;
//   - a read-only bind of all of ~/.local (which the layout rebuilds,
//     with ~/.local/share below it) shows what the layout would leave out
//     (.local/share/app), read-only, while .local/share/keyrings stays
//     masked; control: without the bind .local/share/app is absent.
func testHermesSecretsTail(t *testing.T, f *fixture) {
	f.write(f.expand("{hermes}/cache/documents/secret.txt"), f.marker+"\n")
	f.write(f.expand("{hermes}/attachments/open.txt"), "open\n")
	f.write(f.expand("{scratch}/secret.txt"), f.marker+"\n")
	f.write(f.expand("{home}/.local/share/app/x"), "app\n")
	f.write(f.expand("{home}/.local/share/keyrings/login.keyring"), f.marker+"\n")
	f.chown(f.base)

	docs := `
ok doc 'cat {hermes}/cache/documents/secret.txt'
val att 'cat {hermes}/attachments/open.txt'
`
	r := f.sandbox("sandbox_id: t1\nhide: [~/.hermes/cache/documents]\n", docs, call{})
	f.expect(r, want{"doc": "no", "att": "open"})
	c := f.exec(call{argv: []string{tool("bwpolicy"), "compile", "--config", f.settings("sandbox_id: t1\n"), "-o", f.expand("{base}/docs-control.json")}})
	if c.code != 0 {
		t.Fatalf("control compile: %v", c)
	}
	c = f.exec(call{argv: []string{tool("bwrun"), f.expand("{base}/docs-control.json"), "--", "/bin/cat", f.expand("{hermes}/cache/documents/secret.txt")}})
	if c.stdout != f.marker+"\n" {
		t.Errorf("control: without the hide entry the staged document was not readable: %v", c)
	}

	r = f.sandbox("sandbox_id: t2\nhide: [~/.hermes/cache/scratch]\n", `
ok shared 'cat {scratch}/secret.txt'
ok keep 'printf kept > "$TMPDIR/probe"'
val kept 'cat "$TMPDIR/probe"'
val tmpdir 'echo $TMPDIR'
`, call{})
	f.expect(r, want{"shared": "no", "keep": "yes", "kept": "kept", "tmpdir": "{scratch}/hermes-bwrap-t2"})

	for _, profile := range []string{"network", "restricted"} {
		f.scratchDuringCommand(profile)
	}

	local := `
val app 'cat {home}/.local/share/app/x'
val keyrings 'ls -A {home}/.local/share/keyrings | wc -l'
ok write 'echo y > {home}/.local/share/app/y'
`
	r = f.sandbox("binds:\n  - {src: ~/.local, readonly: true}\n", local, call{})
	f.expect(r, want{"app": "app", "keyrings": "0", "write": "no"})
	f.wantHostAbsent("{home}/.local/share/app/y")
	r = f.sandbox("", `ok app 'cat {home}/.local/share/app/x'`, call{})
	f.expect(r, want{"app": "no"})
}

// scratchDuringCommand runs, under profile, a command that waits until
// the host has made a file and a directory in the shared scratch, then
// lists and reads it: neither is visible. The two sides signal through
// the environment's state directory (writable in every profile).
func (f *fixture) scratchDuringCommand(profile string) {
	t := f.t
	t.Helper()
	id := "w" + profile[:1]
	state := f.expand("{hermes}/sandboxes/bwrap-" + id)
	inv, _ := f.compile("profile: "+profile+"\nsandbox_id: "+id+"\n", call{})
	late, lateDir := f.expand("{scratch}/late-{tag}.txt"), f.expand("{scratch}/hermes-dm-late-{tag}")
	script := f.expand(`touch ` + state + `/started; while [ ! -e ` + state + `/go ]; do sleep 0.05; done
echo "listed: $(ls -A {scratch} | tr '\n' ' ')"; cat ` + late + ` ` + lateDir + `/msg.txt 2>&1`)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd, stdout, stderr := f.command(ctx, call{argv: []string{tool("bwrun"), inv, "--", "/bin/sh", "-c", script}})
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	if !waitFor(30*time.Second, func() bool { _, err := os.Stat(state + "/started"); return err == nil }) {
		cancel()
		<-done
		t.Fatalf("%s: the command did not start: %s %s", profile, stdout, stderr)
	}
	f.write(late, f.marker+"\n")
	f.write(lateDir+"/msg.txt", f.marker+"\n")
	f.chown(f.base)
	if err := os.WriteFile(state+"/go", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := <-done
	out := stdout.String() + stderr.String()
	_, listed, _ := strings.Cut(out, "listed: ")
	listed, _, _ = strings.Cut(listed, "\n")
	if !strings.Contains(listed, "hermes-bwrap-"+id) {
		t.Fatalf("%s: the command did not list the scratch (%v):\n%s", profile, err, out)
	}
	if strings.Contains(out, f.marker) || strings.Contains(listed, "late-"+f.tag) || strings.Contains(listed, "secret.txt") {
		t.Errorf("%s: the shared scratch's entries showed in the sandbox:\n%s", profile, out)
	}
	if f.hostRead(late) != f.marker+"\n" {
		t.Errorf("%s: the host's file changed", profile)
	}
}
