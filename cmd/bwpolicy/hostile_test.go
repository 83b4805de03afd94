package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bwpolicy/bwpolicy/internal/hostile"
)

// Bounds on one run of bwpolicy over a hostile file. The address-space
// limit is what makes an unbounded run fail instead of swapping the
// machine: 2 GiB, because the Go runtime of this binary reserves about
// 0.9 GiB of address space before main (at 1 GiB it cannot start
// reliably); the peak resident memory is the target itself.
const (
	hostileAddressSpace = 2 << 30
	hostileMaxRSS       = 200 << 20
	hostileTimeout      = 60 * time.Second
)

// runBounded runs bwpolicy with args under the address-space limit and
// the timeout, and returns its result and peak RSS in bytes. The RSS
// comes from GNU time (package time), which forks the command itself:
// the rusage of a child this test process starts directly would count
// this process's own peak (Linux carries it over the vfork and exec).
func runBounded(t *testing.T, dir string, args ...string) (result, int64) {
	t.Helper()
	timeBin, err := exec.LookPath("/usr/bin/time")
	if err != nil {
		t.Fatalf("GNU time (apt install time, in .ci/setup.sh) measures the peak RSS: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hostileTimeout)
	defer cancel()
	rssFile := filepath.Join(t.TempDir(), "rss")
	shell := fmt.Sprintf(`ulimit -v %d && exec "$0" "$@"`, hostileAddressSpace>>10)
	cmd := exec.CommandContext(ctx, timeBin, append([]string{"-f", "%M", "-o", rssFile, "sh", "-c", shell, bwpolicyBin}, args...)...)
	cmd.Dir = dir
	cmd.Env = sandboxEnv(t)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("bwpolicy %s: not done after %v", strings.Join(args, " "), hostileTimeout)
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	kb, err := os.ReadFile(rssFile)
	if err != nil {
		t.Fatal(err)
	}
	// GNU time writes "Command exited with non-zero status N" first
	// when the command failed; the RSS is the last line.
	lines := strings.Fields(string(kb))
	rss, err := strconv.ParseInt(lines[len(lines)-1], 10, 64)
	if err != nil {
		t.Fatalf("GNU time output %q: %v", kb, err)
	}
	return result{out.String(), errb.String(), code}, rss << 10
}

// TestHostileInputBounded: check and compile refuse each hostile file
// (alias bomb, 50 MB scalar and list, 100,000 entries, deep nesting)
// with a positioned diagnostic and exit 1, under an address-space limit,
// with a peak RSS under 200 MiB; the output stays small.
func TestHostileInputBounded(t *testing.T) {
	dir := t.TempDir()
	for _, c := range hostile.Cases() {
		file := c.Name + ".yaml"
		if err := os.WriteFile(filepath.Join(dir, file), c.Src, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"check", file}, {"compile", "--config", file}} {
			t.Run(c.Name+"/"+args[0], func(t *testing.T) {
				r, rss := runBounded(t, dir, args...)
				pos := fmt.Sprintf("%s:%d:", file, c.Line)
				if r.code != exitFound || !strings.Contains(r.stdout+r.stderr, pos) || !strings.Contains(r.stdout+r.stderr, c.Want) {
					t.Fatalf("want exit 1 and %q ... %q\n%s", pos, c.Want, r)
				}
				if n := len(r.stdout) + len(r.stderr); n > 4096 {
					t.Errorf("%d bytes of output", n)
				}
				if rss > hostileMaxRSS {
					t.Errorf("peak RSS %d MiB, over %d MiB", rss>>20, hostileMaxRSS>>20)
				}
				t.Logf("peak RSS %d MiB", rss>>20)
			})
		}
	}
}

// TestNotRegularInputs: a named pipe never blocks check (given or found
// in a directory), compile --config, verify, or the reading of a --policy
// rule or a --profiles profile under check, compile and test: each
// refuses it, naming it. Without the non-blocking open each of these hangs until the
// timeout.
func TestNotRegularInputs(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"rules", "profiles"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"p.yaml", "d/p.yaml", "inv.json", "rules/p.rego", "profiles/p.cue"} {
		if err := syscall.Mkfifo(filepath.Join(dir, f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"check", "p.yaml"}, exitFound, "p.yaml: error: is a named pipe (FIFO), not a settings file [input]"},
		{[]string{"check", "d"}, exitFound, "d/p.yaml: error: is a named pipe (FIFO), not a settings file [input]"},
		{[]string{"compile", "--config", "p.yaml"}, exitFound, "p.yaml: error: is a named pipe (FIFO), not a settings file [input]"},
		{[]string{"verify", "inv.json"}, exitUsage, "inv.json: is a named pipe (FIFO), not a regular file"},
		// An organisation rule or a custom profile is read by the same
		// open: the parent read a named pipe among a pull request's
		// rules (or a link to /proc/kmsg) with a blocking open.
		{[]string{"check", "--policy", "rules", "d"}, exitUsage, "rules/p.rego: error: cannot read organisation rules: is a named pipe (FIFO), not a regular file [policy]"},
		{[]string{"compile", "--policy", "rules"}, exitUsage, "rules/p.rego: error: cannot read organisation rules: is a named pipe (FIFO), not a regular file [policy]"},
		{[]string{"test", "rules"}, exitUsage, "rules/p.rego: error: cannot read organisation rules: is a named pipe (FIFO), not a regular file [policy]"},
		{[]string{"check", "--profiles", "profiles", "d"}, exitFound, "profiles/p.cue: error: cannot read profile: is a named pipe (FIFO), not a regular file [input]"},
		{[]string{"compile", "--profiles", "profiles"}, exitFound, "profiles/p.cue: error: cannot read profile: is a named pipe (FIFO), not a regular file [input]"},
	} {
		t.Run(strings.Join(tc.args, "_"), func(t *testing.T) {
			r, _ := runBounded(t, dir, tc.args...)
			if r.code != tc.code || !strings.Contains(r.stdout+r.stderr, tc.want) {
				t.Fatalf("want exit %d and %q\n%s", tc.code, tc.want, r)
			}
		})
	}
}

// TestVerifyHugeInvocation: verify stops reading at the invocation size
// bound: a 200 MB file is refused with a peak RSS far below its size.
func TestVerifyHugeInvocation(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "big.json"))
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"format":"`)
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	for i := 0; i < 200; i++ {
		f.Write(chunk)
	}
	f.WriteString(`"}`)
	f.Close()
	r, rss := runBounded(t, dir, "verify", "big.json")
	if r.code != exitUsage || !strings.Contains(r.stderr, "larger than 16777216 bytes") {
		t.Fatalf("want exit 2, too large\n%s", r)
	}
	if rss > 100<<20 {
		t.Errorf("peak RSS %d MiB reading a refused invocation", rss>>20)
	}
}

// TestHostileValues: impossible paths (NUL, over PATH_MAX, a component
// over NAME_MAX) and non-finite or out-of-range limits are refused by
// check and compile at their line, quoting at most 200 bytes; a BOM is
// accepted and a binary file's bytes are escaped in the snippet.
func TestHostileValues(t *testing.T) {
	long := "/" + strings.Repeat("d/", 2100)
	for _, tc := range []struct {
		name, src string
		code      int
		want      []string
	}{
		{"nul", "binds:\n  - src: \"/usr\\0x\"\n", 1, []string{"s.yaml:2:10: error: binds[0].src: contains a NUL byte"}},
		{"path_max", "hide:\n  - " + long + "\n", 1, []string{"s.yaml:2:5: error: hide[0]: is 4201 bytes long"}},
		{"name_max", "cwd: /" + strings.Repeat("n", 256) + "\n", 1, []string{"s.yaml:1:6: error: cwd: has a component of 256 bytes"}},
		{"inf", "memory_mb: .inf\n", 1, []string{"s.yaml:1:12: error: memory_mb: must be a finite number"}},
		{"minus_inf", "cpu_seconds: -.inf\n", 1, []string{"s.yaml:1:14: error: cpu_seconds: must be a finite number"}},
		{"nan", "max_procs: .nan\n", 1, []string{"s.yaml:1:12: error: max_procs: must be a finite number"}},
		{"1e400", "memory_mb: 1e400\n", 1, []string{"s.yaml:1:12: error: memory_mb: must be at most 1073741824, got 1e400"}},
		{"1e20", "memory_mb: 1e20\n", 1, []string{"s.yaml:1:12: error: memory_mb: must be at most 1073741824, got 1e20"}},
		{"long_value", "profile: " + strings.Repeat("Q", 500000) + "\n", 1, []string{"s.yaml:1:10: error: profile: \"QQQ", "… (500000 bytes) does not match"}},
		{"bom", "\ufeffprofile: workspace\n", 0, []string{"0 errors"}},
		{"binary", "memory_mb: \x1b]0;pwned\x07\xff\n", 1, []string{`\u001b]0;pwned\u0007\xff`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "s.yaml"), []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			r := run(t, dir, sandboxEnv(t), "check", "s.yaml")
			out := r.stdout + r.stderr
			for _, w := range tc.want {
				if r.code != tc.code || !strings.Contains(out, w) {
					t.Fatalf("want exit %d and %q\n%s", tc.code, w, r)
				}
			}
			//lint:ignore SA1011 the set holds raw bytes on purpose: 0xff is one of the bytes looked for
			if len(out) > 4096 || strings.ContainsAny(out, "\x1b\x07\xff") {
				t.Fatalf("output of %d bytes, or raw control bytes:\n%q", len(out), out)
			}
			if tc.code != 0 {
				if c := run(t, dir, sandboxEnv(t), "compile", "--config", "s.yaml", "--cwd", dir); c.code != exitFound || !strings.Contains(c.stderr, tc.want[0]) {
					t.Fatalf("compile: want exit 1 and %q\n%s", tc.want[0], c)
				}
			}
		})
	}
}

// TestCompileOutputTargets: -o writes atomically onto a new name (0644)
// or a regular file (keeping its mode), and refuses, exit 2, to replace
// a symbolic link, a named pipe or a device, leaving them as they were.
func TestCompileOutputTargets(t *testing.T) {
	dir := t.TempDir()
	cwd := filepath.Join(dir, "work")
	os.Mkdir(cwd, 0o755)
	if err := os.WriteFile(filepath.Join(dir, "s.yaml"), []byte("profile: workspace\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	compileTo := func(out string) result {
		return run(t, dir, sandboxEnv(t), "compile", "--config", "s.yaml", "--cwd", cwd, "-o", out)
	}
	if r := compileTo("new.json"); r.code != 0 {
		t.Fatal(r)
	}
	if st, _ := os.Stat(filepath.Join(dir, "new.json")); st == nil || st.Mode().Perm() != 0o644 {
		t.Fatalf("new file mode: %v", st)
	}
	priv := filepath.Join(dir, "priv.json")
	os.WriteFile(priv, []byte("old"), 0o600)
	if r := compileTo("priv.json"); r.code != 0 {
		t.Fatal(r)
	}
	if st, _ := os.Stat(priv); st.Mode().Perm() != 0o600 || st.Size() < 100 {
		t.Fatalf("existing file: mode %v size %d", st.Mode(), st.Size())
	}
	os.Symlink("priv.json", filepath.Join(dir, "link.json"))
	syscall.Mkfifo(filepath.Join(dir, "fifo.json"), 0o644)
	for out, want := range map[string]string{
		"link.json": "-o link.json: is a symbolic link; refusing to replace it",
		"fifo.json": "-o fifo.json: is a named pipe (FIFO); refusing to replace it",
		"/dev/null": "-o /dev/null: is a character device; refusing to replace it",
	} {
		r := compileTo(out)
		if r.code != exitUsage || !strings.Contains(r.stderr, want) {
			t.Errorf("-o %s: want exit 2 and %q\n%s", out, want, r)
		}
	}
	if st, err := os.Lstat(filepath.Join(dir, "link.json")); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symbolic link was replaced")
	}
	if st, err := os.Lstat(filepath.Join(dir, "fifo.json")); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the named pipe was replaced")
	}
	if st, err := os.Stat("/dev/null"); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a device")
	}
}

// TestSARIFLocatesEveryFinding: the findings that used to come without a
// location (a non-finite limit, an unreadable file, a nesting or size
// refusal) each get one with a region, so GitHub accepts the upload.
func TestSARIFLocatesEveryFinding(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"inf.yaml":   "memory_mb: .inf\n",
		"deep.yaml":  strings.Repeat("[", 100) + strings.Repeat("]", 100) + "\n",
		"big.yaml":   "cwd: /" + strings.Repeat("a", 2<<20) + "\n",
		"bomb.yaml":  string(hostile.Cases()[0].Src),
		"empty.yaml": "",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, sandboxEnv(t), "check", "--format", "sarif", ".")
	if r.code != exitFound {
		t.Fatalf("want exit 1\n%s", r)
	}
	validateSARIF(t, []byte(r.stdout))
	if n := strings.Count(r.stdout, `"ruleId"`); n != len(files)+1 {
		t.Errorf("%d results, want %d\n%s", n, len(files)+1, r.stdout)
	}
}
