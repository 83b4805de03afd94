package sandboxtest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fixture is one scenario's fake host: a HOME full of credentials, a
// HERMES_HOME, a project directory (the default working directory) and a
// few directories for binds, all under base, owned by the identity that
// runs the scenario.
type fixture struct {
	t       *testing.T
	id      identity
	base    string // /var/tmp/bwpolicy-sbx-*
	home    string // base/home
	hermes  string // home/.hermes (HERMES_HOME)
	proj    string // home/proj
	scratch string // hermes/cache/scratch
	// marker is the secret every credential file holds; it must never
	// appear in anything a sandboxed command prints.
	marker string
	// tag is a random token for names that must be unique machine-wide.
	tag string
	n   int // settings/invocation counter
}

// fixtureFiles is the fake host: path (relative to base) → content; a
// trailing "/" makes a directory; "->" a symlink. SECRET is replaced by
// the fixture's marker.
var fixtureFiles = []string{
	"home/.ssh/id_rsa=-----BEGIN OPENSSH PRIVATE KEY----- SECRET",
	"home/.ssh/config=Host *",
	"home/.aws/credentials=aws_secret_access_key = SECRET",
	"home/.npmrc=//registry.npmjs.org/:_authToken=SECRET",
	"home/.env=API_KEY=SECRET",
	"home/.netrc=machine example.com login me password SECRET",
	"home/.pypirc=[pypi] password = SECRET",
	"home/.docker/config.json={\"auths\": {\"x\": {\"auth\": \"SECRET\"}}}",
	"home/.azure/accessTokens.json=[\"SECRET\"]",
	"home/.gpg/secring.gpg=SECRET",
	"home/dotfiles/gnupg/private-keys-v1.d/key.key=SECRET",
	"home/.gnupg->dotfiles/gnupg",
	"home/.config/gcloud/credentials.db=SECRET",
	"home/.config/app.conf=app-config",
	"home/.config/gh/hosts.yml=github.com: {oauth_token: SECRET}",
	"home/.git-credentials=https://me:SECRET@github.com",
	"home/.bashrc=# bashrc",
	"home/notes/todo=todo",
	"home/.hermes/.env=OPENROUTER_API_KEY=SECRET",
	"home/.hermes/auth.json={\"token\": \"SECRET\"}",
	"home/.hermes/cache/scratch/",
	"home/.hermes/sandboxes/bwrap-x/state=backend-state",
	"home/.hermes/venv/cacert.pem=-----BEGIN CERTIFICATE----- sbx-test-ca -----END CERTIFICATE-----",
	"home/.hermes/venv/lib/site.py=SECRET",
	"home/.hermes/certs/extra.pem=sbx-cert-dir",
	"home/proj/README=readme",
	"home/proj/src/main.go=package main",
	"home/proj/sub/inner/",
	"data/existing=data",
	"ro/file=read-only-data",
	"mnt/",
}

func newFixture(t *testing.T, id identity) *fixture {
	t.Helper()
	base, err := os.MkdirTemp("/var/tmp", "bwpolicy-sbx-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(base); err != nil {
			t.Errorf("cleaning up: %v", err)
		}
	})
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, id: id, base: base, home: filepath.Join(base, "home"),
		marker: "sbx-SECRET-" + randHex(8), tag: randHex(4)}
	f.hermes = filepath.Join(f.home, ".hermes")
	f.proj = filepath.Join(f.home, "proj")
	f.scratch = filepath.Join(f.hermes, "cache", "scratch")
	for _, e := range fixtureFiles {
		f.create(e)
	}
	f.chown(base)
	return f
}

// create makes one fixtureFiles entry.
func (f *fixture) create(entry string) {
	f.t.Helper()
	if name, target, ok := strings.Cut(entry, "->"); ok {
		p := filepath.Join(f.base, name)
		f.mkdirAll(filepath.Dir(p))
		if err := os.Symlink(target, p); err != nil {
			f.t.Fatal(err)
		}
		return
	}
	name, content, _ := strings.Cut(entry, "=")
	p := filepath.Join(f.base, name)
	if strings.HasSuffix(name, "/") {
		f.mkdirAll(p)
		return
	}
	f.write(p, strings.ReplaceAll(content, "SECRET", f.marker)+"\n")
}

// mkdirAll creates dir and its missing parents, owned by the fixture's
// identity when they lie under base.
func (f *fixture) mkdirAll(dir string) {
	f.t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		f.t.Fatal(err)
	}
	if f.id.uid == os.Getuid() && f.id.gid == os.Getgid() {
		return
	}
	for d := dir; strings.HasPrefix(d, f.base+"/"); d = filepath.Dir(d) {
		if err := os.Lchown(d, f.id.uid, f.id.gid); err != nil {
			f.t.Fatal(err)
		}
	}
}

// write creates (or replaces) a host file, with its parents, readable by
// everyone and owned by the fixture's identity.
func (f *fixture) write(path, content string) {
	f.t.Helper()
	f.mkdirAll(filepath.Dir(path))
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
	f.chown(path)
}

// chown gives the tree at root to the fixture's identity (when it is not
// this process's own).
func (f *fixture) chown(root string) {
	f.t.Helper()
	if f.id.uid == os.Getuid() && f.id.gid == os.Getgid() {
		return
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, f.id.uid, f.id.gid)
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

// expand replaces the placeholders {base} {home} {hermes} {proj}
// {scratch} {bin} {tag} {uid} {marker} in s.
func (f *fixture) expand(s string) string {
	return strings.NewReplacer(
		"{base}", f.base, "{home}", f.home, "{hermes}", f.hermes, "{proj}", f.proj,
		"{scratch}", f.scratch, "{bin}", binDir, "{tag}", f.tag,
		"{uid}", strconv.Itoa(f.id.uid), "{marker}", f.marker,
	).Replace(s)
}

// hostRead returns a host file's content ("<absent>" when missing).
func (f *fixture) hostRead(path string) string {
	f.t.Helper()
	b, err := os.ReadFile(f.expand(path))
	if errors.Is(err, fs.ErrNotExist) {
		return "<absent>"
	}
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

// hostExists reports whether a host path exists (without following a
// final symlink).
func (f *fixture) hostExists(path string) bool {
	_, err := os.Lstat(f.expand(path))
	return err == nil
}

// hostList returns the sorted names in a host directory.
func (f *fixture) hostList(dir string) []string {
	f.t.Helper()
	ents, err := os.ReadDir(f.expand(dir))
	if err != nil {
		f.t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// wantHostFile fails the test unless the host file holds content.
func (f *fixture) wantHostFile(path, content string) {
	f.t.Helper()
	if got := f.hostRead(path); got != content {
		f.t.Errorf("host %s: %q, want %q", f.expand(path), got, content)
	}
}

// wantHostAbsent fails the test if the host path exists.
func (f *fixture) wantHostAbsent(path string) {
	f.t.Helper()
	if f.hostExists(path) {
		f.t.Errorf("host %s exists; it must not", f.expand(path))
	}
}

// wantHostCredentialsUnchanged checks that the fixture's credentials are
// as created: the marker in place, no entry added or removed.
func (f *fixture) wantHostCredentialsUnchanged() {
	f.t.Helper()
	secret := func(prefix string) string { return prefix + f.marker + "\n" }
	f.wantHostFile("{home}/.ssh/id_rsa", secret("-----BEGIN OPENSSH PRIVATE KEY----- "))
	f.wantHostFile("{home}/.npmrc", secret("//registry.npmjs.org/:_authToken="))
	f.wantHostFile("{home}/.env", secret("API_KEY="))
	f.wantHostFile("{home}/.aws/credentials", secret("aws_secret_access_key = "))
	f.wantHostFile("{home}/.config/gcloud/credentials.db", secret(""))
	f.wantHostFile("{home}/dotfiles/gnupg/private-keys-v1.d/key.key", secret(""))
	f.wantHostFile("{hermes}/.env", secret("OPENROUTER_API_KEY="))
	f.wantHostFile("{home}/.netrc", secret("machine example.com login me password "))
	f.wantHostFile("{home}/.pypirc", secret("[pypi] password = "))
	f.wantHostFile("{home}/.gpg/secring.gpg", secret(""))
	f.wantHostFile("{home}/.git-credentials", "https://me:"+f.marker+"@github.com\n")
	f.wantHostFile("{home}/.config/gh/hosts.yml", "github.com: {oauth_token: "+f.marker+"}\n")
	f.wantHostFile("{home}/.azure/accessTokens.json", "[\""+f.marker+"\"]\n")
	f.wantHostFile("{home}/.docker/config.json", "{\"auths\": {\"x\": {\"auth\": \""+f.marker+"\"}}}\n")
	for dir, want := range map[string][]string{
		"{home}/.ssh":                {"config", "id_rsa"},
		"{home}/.aws":                {"credentials"},
		"{home}/.config/gcloud":      {"credentials.db"},
		"{home}/dotfiles/gnupg":      {"private-keys-v1.d"},
		"{hermes}":                   {".env", "auth.json", "cache", "certs", "sandboxes", "venv"},
		"{hermes}/sandboxes":         {"bwrap-x"},
		"{hermes}/cache":             {"scratch"},
		"{home}/.config":             {"app.conf", "gcloud", "gh"},
		"{home}/.config/gh":          {"hosts.yml"},
		"{hermes}/venv":              {"cacert.pem", "lib"},
		"{hermes}/sandboxes/bwrap-x": {"state"},
		"{home}/.docker":             {"config.json"},
		"{home}/.azure":              {"accessTokens.json"},
		"{home}/.gpg":                {"secring.gpg"},
	} {
		if !f.hostExists(dir) {
			f.t.Errorf("host %s is gone", f.expand(dir))
			continue
		}
		got := f.hostList(dir)
		if dir == "{hermes}" {
			got = slices.DeleteFunc(got, func(n string) bool { return n == "config.yaml" || n == "home" || n == "hermes-agent" })
		}
		if !slices.Equal(got, want) {
			f.t.Errorf("host %s holds %q, want %q", f.expand(dir), got, want)
		}
	}
	if target, err := os.Readlink(f.expand("{home}/.gnupg")); err != nil || target != "dotfiles/gnupg" {
		f.t.Errorf("host ~/.gnupg: readlink %q, %v; want dotfiles/gnupg", target, err)
	}
}

// result is what a command did.
type result struct {
	argv           []string
	stdout, stderr string
	code           int
	elapsed        time.Duration
}

func (r result) String() string {
	return fmt.Sprintf("%q: exit %d after %v\n--- stdout:\n%s--- stderr:\n%s", r.argv, r.code, r.elapsed.Round(time.Millisecond), r.stdout, r.stderr)
}

// call is one host command to run as the fixture's identity.
type call struct {
	argv []string
	dir  string   // default: the project directory
	env  []string // NAME=value added to (or replacing in) the base environment; "-NAME" removes NAME
	// privateRun: run in a private mount namespace whose /run is a fresh
	// tmpfs holding the fake sockets of privateRunSetup (root only).
	privateRun bool
	timeout    time.Duration // default 60 s
}

// baseEnv is the environment every command gets: explicit, never the
// test process's own (which may hold real tokens and agent sockets).
func (f *fixture) baseEnv() []string {
	return []string{
		"PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin",
		"HOME=" + f.home,
		"HERMES_HOME=" + f.hermes,
		"USER=" + f.id.login,
		"LOGNAME=" + f.id.login,
		"LANG=C",
		"LC_ALL=C",
		"BWPOLICY_BWRAP=" + bwrapPath,
	}
}

func mergeEnv(env, extra []string) []string {
	out := slices.Clone(env)
	for _, kv := range extra {
		if name, ok := strings.CutPrefix(kv, "-"); ok {
			out = slices.DeleteFunc(out, func(e string) bool { return strings.HasPrefix(e, name+"=") })
			continue
		}
		name, _, _ := strings.Cut(kv, "=")
		out = slices.DeleteFunc(out, func(e string) bool { return strings.HasPrefix(e, name+"=") })
		out = append(out, kv)
	}
	return out
}

// command prepares a host command (not started) and its output buffers:
// as the fixture's identity, or, with privateRun, as root in a private
// mount namespace that drops to the identity after privateRunSetup.
func (f *fixture) command(ctx context.Context, c call) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	f.t.Helper()
	argv := make([]string, len(c.argv))
	for i, a := range c.argv {
		argv[i] = f.expand(a)
	}
	dir := f.proj
	if c.dir != "" {
		dir = f.expand(c.dir)
	}
	env := mergeEnv(f.baseEnv(), c.env)
	for i, kv := range env {
		env[i] = f.expand(kv)
	}
	var cmd *exec.Cmd
	if c.privateRun {
		if os.Getuid() != 0 {
			f.t.Fatal("privateRun needs root")
		}
		script := f.expand(privateRunSetup)
		if f.id.cred != nil {
			script += fmt.Sprintf(`exec "$SBX" asuser %d %d -- "$@"`, f.id.uid, f.id.gid)
		} else {
			script += `exec "$@"`
		}
		cmd = exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", script, "sh"}, argv...)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
		env = append(env, "SBX="+tool("sbxtool"))
	} else {
		cmd = exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: f.id.cred}
	}
	cmd.Dir = dir
	cmd.Env = env
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return cmd, &stdout, &stderr
}

// privateRunSetup runs as root in a private mount namespace before the
// command: /run becomes a fresh tmpfs (so nothing on the real host
// changes) holding /run/user/<uid> with agent and bus sockets, owned by
// the identity, and a docker socket.
const privateRunSetup = `set -e
mount -t tmpfs -o mode=0755 bwpolicy-sbx-run /run
mkdir -m 0755 /run/user
mkdir -m 0700 /run/user/{uid}
"$SBX" mksock /run/user/{uid}/bus
mkdir -m 0700 /run/user/{uid}/gnupg
"$SBX" mksock /run/user/{uid}/gnupg/S.gpg-agent.ssh
echo keyring-{tag} >/run/user/{uid}/keyring-token
chown -R {uid} /run/user/{uid}
"$SBX" mksock /run/docker.sock
mkdir -m 0755 /run/dbus
"$SBX" mksock /run/dbus/system_bus_socket
chmod 0666 /run/dbus/system_bus_socket
`

// exec runs a host command as the fixture's identity and waits for it.
func (f *fixture) exec(c call) result {
	f.t.Helper()
	timeout := c.timeout
	if timeout == 0 {
		timeout = 60 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd, stdout, stderr := f.command(ctx, c)
	start := time.Now()
	err := cmd.Run()
	r := result{argv: cmd.Args, stdout: stdout.String(), stderr: stderr.String(), elapsed: time.Since(start)}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.code = 128 + int(ws.Signal())
		}
	case err != nil:
		f.t.Fatalf("running %q: %v", cmd.Args, err)
	}
	if ctx.Err() != nil {
		f.t.Fatalf("timed out after %v: %v", timeout, r)
	}
	return r
}

// settings writes a settings file (placeholders expanded) and returns its
// path.
func (f *fixture) settings(yaml string) string {
	f.t.Helper()
	f.n++
	p := filepath.Join(f.base, fmt.Sprintf("settings-%d.yaml", f.n))
	f.write(p, f.expand(yaml))
	return p
}

// compile compiles settings (YAML; "" for none: the discovery rules
// apply) with `bwpolicy compile -o`, requires success, and returns the
// invocation's path and the compiler's stderr (warnings).
func (f *fixture) compile(yaml string, c call) (string, string) {
	f.t.Helper()
	f.n++
	inv := filepath.Join(f.base, fmt.Sprintf("inv-%d.json", f.n))
	c.argv = []string{tool("bwpolicy"), "compile", "-o", inv}
	if yaml != "" {
		c.argv = append(c.argv, "--config", f.settings(yaml))
	}
	r := f.exec(c)
	if r.code != 0 {
		f.t.Fatalf("compile failed: %v\nsettings:\n%s", r, f.expand(yaml))
	}
	return inv, r.stderr
}

// bwrun runs `sh -c PRELUDE+script` (placeholders expanded) in the
// invocation with bwrun.
func (f *fixture) bwrun(inv, script string, c call) result {
	f.t.Helper()
	c.argv = []string{tool("bwrun"), inv, "--", "/bin/sh", "-c", prelude + f.expand(script)}
	r := f.exec(c)
	f.noMarker(r)
	return r
}

// sandbox compiles yaml and runs script in it once.
func (f *fixture) sandbox(yaml, script string, c call) result {
	f.t.Helper()
	inv, _ := f.compile(yaml, c)
	return f.bwrun(inv, script, c)
}

// noMarker fails the test if a command printed the credential marker.
func (f *fixture) noMarker(r result) {
	f.t.Helper()
	if strings.Contains(r.stdout, f.marker) || strings.Contains(r.stderr, f.marker) {
		f.t.Errorf("a credential leaked into the sandbox's output: %v", r)
	}
}

// prelude defines the two probes the scenario scripts use:
//
//	ok NAME 'SHELL'   prints NAME=yes when SHELL succeeds, NAME=no otherwise
//	val NAME 'SHELL'  prints NAME=<SHELL's output and errors on one line>
const prelude = `ok() { if (eval "$2") >/dev/null 2>&1; then echo "$1=yes"; else echo "$1=no"; fi; }
val() { printf '%s=%s\n' "$1" "$( (eval "$2") 2>&1 | tr '\n' ' ' | sed 's/ *$//')"; }
`

// denylist is the settings line that selects the denylist home layout
// (masks over the hidden entries), for scenarios whose subject is those
// masks; the default is the allowlist layout (H10).
const denylist = "home: {layout: denylist}\n"

// absent is the probe value of `ls`, `cat` or `stat` on a path that does
// not exist in the sandbox.
const absent = "~No such file or directory"

// probes parses NAME=VALUE lines.
func probes(out string) map[string]string {
	m := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			m[k] = v
		}
	}
	return m
}

// want is the expected probe values; a value starting with "~" is a
// substring that must occur, "!~" one that must not.
type want map[string]string

// expect checks a sandbox run: exit status 0 and each probe as wanted.
func (f *fixture) expect(r result, w want) {
	f.t.Helper()
	if r.code != 0 {
		f.t.Errorf("sandbox command failed: %v", r)
		return
	}
	got := probes(r.stdout)
	keys := make([]string, 0, len(w))
	for k := range w {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	bad := false
	for _, k := range keys {
		wv := f.expand(w[k])
		gv, ok := got[k]
		switch {
		case !ok:
			f.t.Errorf("probe %s: missing from the output", k)
		case strings.HasPrefix(wv, "!~"):
			if strings.Contains(gv, wv[2:]) {
				f.t.Errorf("probe %s = %q, must not contain %q", k, gv, wv[2:])
				bad = true
			}
		case strings.HasPrefix(wv, "~"):
			if !strings.Contains(gv, wv[1:]) {
				f.t.Errorf("probe %s = %q, want it to contain %q", k, gv, wv[1:])
				bad = true
			}
		case gv != wv:
			f.t.Errorf("probe %s = %q, want %q", k, gv, wv)
			bad = true
		}
	}
	if bad {
		f.t.Logf("sandbox run: %v", r)
	}
}

// wantCode fails the test unless r exited with code.
func (f *fixture) wantCode(r result, code int) {
	f.t.Helper()
	if r.code != code {
		f.t.Errorf("exit %d, want %d: %v", r.code, code, r)
	}
}

// wantStderr fails the test unless r's stderr contains each string.
func (f *fixture) wantStderr(r result, subs ...string) {
	f.t.Helper()
	for _, s := range subs {
		if !strings.Contains(r.stderr, f.expand(s)) {
			f.t.Errorf("stderr lacks %q: %v", f.expand(s), r)
		}
	}
}

// hostListener accepts TCP connections on the host's 127.0.0.1 and
// greets each with "host-listener". It returns the address.
func hostListener(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(5 * time.Second))
				// Answer plain TCP clients and HTTP clients (curl) alike.
				fmt.Fprint(c, "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 14\r\n\r\nhost-listener\n")
				c.(*net.TCPConn).CloseWrite()
				buf := make([]byte, 4096)
				for {
					if _, err := c.Read(buf); err != nil {
						return
					}
				}
			}()
		}
	}()
	return l.Addr().String()
}

// hostAbstractListener listens on the host's abstract Unix socket
// @bwpolicy-sbx-TAG (as an X server's @/tmp/.X11-unix/X0 would) and
// greets each client with "host-abstract". It returns the address.
func hostAbstractListener(t *testing.T, tag string) string {
	t.Helper()
	addr := "@bwpolicy-sbx-" + tag
	greetingListener(t, addr, "host-abstract\n")
	return addr
}

// greetingListener listens on the Unix socket addr (a path, or @name for
// an abstract one), writes greeting to each client and closes the
// connection, until the test ends.
func greetingListener(t *testing.T, addr, greeting string) {
	t.Helper()
	l, err := net.Listen("unix", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			fmt.Fprint(c, greeting)
			c.Close()
		}
	}()
}

// hostProcsWithArg returns the pids of host processes that have arg among
// their arguments.
func hostProcsWithArg(arg string) []int {
	return hostProcs(func(dir string) bool {
		b, err := os.ReadFile(filepath.Join(dir, "cmdline"))
		return err == nil && slices.Contains(strings.Split(string(b), "\x00"), arg)
	})
}

// hostProcs returns the pids of the host processes for whose /proc/PID
// directory match is true.
func hostProcs(match func(dir string) bool) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err == nil && match(filepath.Join("/proc", e.Name())) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitFor polls cond every 20 ms until it is true or d has passed.
func waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func randHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}
