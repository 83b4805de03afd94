package sandboxtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/build"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/bwpolicy/bwpolicy/internal/schematest"
	bwruntime "github.com/bwpolicy/bwpolicy/runtime"
)

// s11Tools builds, once, what the pid-1 takeover test needs: the attack
// (testdata/pid1takeover, C, x86_64); bwrun-nocontain, bwrun built with
// -tags bwpolicy_nocontain (finish does not kill the sandbox's pid
// namespace, and the argument check does not require the mask of pid
// 1's memory), the control; bwrun-nopid1check, bwrun built with -tags
// bwpolicy_nopid1check (the namespace kill, without that requirement),
// to run an invocation whose mask was removed.
var s11Tools = sync.OnceValue(func() error {
	c := exec.Command("gcc", "-O2", "-Wall", "-o", tool("pid1takeover"), "testdata/pid1takeover/pid1takeover.c")
	if out, err := c.CombinedOutput(); err != nil {
		return fmt.Errorf("gcc: %v\n%s", err, out)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(build.Default.GOROOT, "bin", "go")
	}
	for _, b := range []struct{ tag, name string }{{"bwpolicy_nocontain", "bwrun-nocontain"}, {"bwpolicy_nopid1check", "bwrun-nopid1check"}} {
		c = exec.Command(goBin, "build", "-tags", b.tag, "-o", tool(b.name), "github.com/bwpolicy/bwpolicy/cmd/bwrun")
		if out, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", b.name, err, out)
		}
	}
	for _, n := range []string{"pid1takeover", "bwrun-nocontain", "bwrun-nopid1check"} {
		if err := os.Chmod(tool(n), 0o755); err != nil {
			return err
		}
	}
	return nil
})

// takeoverScript starts a background writer appending to {proj}/beat,
// records the sandbox's pid namespace, and runs the attack.
const takeoverScript = `readlink /proc/self/ns/pid > {proj}/pidns
(while :; do echo x >> {proj}/beat; sleep 0.05; done) &
sleep 0.3
{bin}/pid1takeover`

// S11: a command cannot take over the sandbox's pid 1, and one that does
// (here: with the mask of pid 1's memory removed from the invocation, as
// a route the mask does not foresee would) still does not outlive bwrun.
//
// The attack (testdata/pid1takeover) writes code into /proc/1/mem that
// clears pid 1's parent-death signal and reports a fake exit 0 to bwrap,
// behind a background writer. Four runs:
//
//   - the compiled invocation under bwrun-nocontain (the runtime without
//     the namespace kill): the attack is refused (/proc/1/mem is masked)
//     and the sandbox dies with bwrap (within 5 s: that runtime does not
//     wait for it);
//   - the invocation without the mask under bwrun: refused before
//     anything runs (exit 125, the argument check names /proc/1/mem);
//   - the invocation without the mask under bwrun-nocontain, the control:
//     the attack works, the writer keeps writing after the runtime
//     returned;
//   - the invocation without the mask under bwrun-nopid1check (the
//     namespace kill without the argument check): once it returns, no
//     process of the sandbox's pid namespace exists and the writer has
//     stopped.
func testPid1Takeover(t *testing.T, f *fixture) {
	if goruntime.GOARCH != "amd64" {
		t.Skipf("the pid-1 takeover helper is x86_64 code; this is %s", goruntime.GOARCH)
	}
	if err := s11Tools(); err != nil {
		t.Fatal(err)
	}
	inv, _ := f.compile("", call{})
	unmasked := f.withoutArgs(inv, "--ro-bind", "/dev/null", "/proc/1/mem", "--ro-bind", "/dev/null", "/proc/1/task/1/mem")
	os.Remove(f.expand("{proj}/pidns"))
	r := f.execToFile(call{argv: []string{tool("bwrun"), unmasked, "--", "/bin/sh", "-c", f.expand(takeoverScript)}})
	if r.code != 125 || !strings.Contains(r.stdout, "reachable at /proc/1/mem") || f.hostExists("{proj}/pidns") {
		t.Errorf("unmasked: bwrun did not refuse the invocation before running it: %v", r)
	}
	for _, c := range []struct {
		name, inv, bwrun string
		attack           string // "refused", "outlives" (control), "contained"
	}{
		{"masked", inv, tool("bwrun-nocontain"), "refused"},
		{"control", unmasked, tool("bwrun-nocontain"), "outlives"},
		{"contained", unmasked, tool("bwrun-nopid1check"), "contained"},
	} {
		os.Remove(f.expand("{proj}/beat"))
		r = f.execToFile(call{argv: []string{c.bwrun, c.inv, "--", "/bin/sh", "-c", f.expand(takeoverScript)}})
		took := strings.Contains(r.stdout, "takeover: ok")
		if c.attack == "refused" {
			if took || !strings.Contains(r.stdout, "takeover: FAIL open /proc/1/mem read-write") {
				t.Errorf("%s: the attack was not refused at /proc/1/mem: %v", c.name, r)
			}
		} else if !took {
			t.Fatalf("%s: the attack did not take pid 1 over: %v", c.name, r)
		}
		ns := strings.TrimSpace(f.hostRead("{proj}/pidns"))
		if !strings.HasPrefix(ns, "pid:[") {
			t.Fatalf("pid namespace %q", ns)
		}
		left := procsInPidNS(ns)
		if c.attack == "refused" {
			// bwrun-nocontain returns without waiting for the sandbox to
			// die: it dies by bwrap's parent-death signal, a moment later.
			waitFor(5*time.Second, func() bool { return len(procsInPidNS(ns)) == 0 })
			left = procsInPidNS(ns)
		}
		s1 := fileSize(f.expand("{proj}/beat"))
		time.Sleep(time.Second)
		s2 := fileSize(f.expand("{proj}/beat"))
		for _, p := range procsInPidNS(ns) {
			syscall.Kill(p, syscall.SIGKILL)
		}
		if c.attack == "outlives" {
			if r.code != 0 || len(left) == 0 || s2 <= s1 {
				t.Errorf("control: the attack did not outlive bwrun-nocontain (exit %d, processes %v, beat %d -> %d bytes): the test proves nothing", r.code, left, s1, s2)
			}
			continue
		}
		if len(left) > 0 {
			var st []string
			for _, p := range left {
				b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
				st = append(st, string(b))
			}
			t.Errorf("%s: processes %v of the sandbox's pid namespace %s outlived the runtime: %q", c.name, left, ns, st)
		}
		if s2 != s1 || s1 == 0 {
			t.Errorf("%s: the background writer wrote %d bytes before the runtime returned, %d a second later (want > 0, unchanged)", c.name, s1, s2)
		}
	}
}

// withoutArgs writes a copy of the invocation inv whose bwrap arguments
// lack the sequence args (which must be there), and returns its path.
func (f *fixture) withoutArgs(inv string, args ...string) string {
	f.t.Helper()
	data, err := os.ReadFile(inv)
	if err != nil {
		f.t.Fatal(err)
	}
	// UseNumber: bwrap's recorded identity (mtime in nanoseconds) does not
	// survive a float64 round trip, and bwrun would call it another bwrap.
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		f.t.Fatal(err)
	}
	bw := doc["bwrap"].(map[string]any)
	var have []string
	for _, a := range bw["args"].([]any) {
		have = append(have, a.(string))
	}
	at := -1
	for i := 0; i+len(args) <= len(have); i++ {
		if slices.Equal(have[i:i+len(args)], args) {
			at = i
		}
	}
	if at < 0 {
		f.t.Fatalf("%s has no %q", inv, args)
	}
	bw["args"] = slices.Delete(have, at, at+len(args))
	// The explanation's counts no longer cover the arguments, which
	// bwrun refuses first; an editor who knows the format drops the
	// rows (an invocation without explanation rows is accepted).
	doc["explain"] = []any{}
	out, err := json.Marshal(doc)
	if err != nil {
		f.t.Fatal(err)
	}
	p := strings.TrimSuffix(inv, ".json") + "-edited.json"
	f.write(p, string(out))
	return p
}

// execToFile runs c with stdout and stderr going to a file rather than a
// pipe, so that a process that outlives the command (and holds them)
// does not keep the test waiting.
func (f *fixture) execToFile(c call) result {
	f.t.Helper()
	out, err := os.CreateTemp(f.base, "out-")
	if err != nil {
		f.t.Fatal(err)
	}
	defer out.Close()
	cmd, _, _ := f.command(f.t.Context(), c)
	cmd.Stdout, cmd.Stderr = out, out
	start := time.Now()
	err = cmd.Run()
	r := result{argv: cmd.Args, code: cmd.ProcessState.ExitCode(), elapsed: time.Since(start)}
	if err != nil && cmd.ProcessState == nil {
		f.t.Fatalf("running %q: %v", cmd.Args, err)
	}
	b, _ := os.ReadFile(out.Name())
	r.stdout = string(b)
	return r
}

// procsInPidNS returns the host pids whose pid namespace is ns
// ("pid:[N]"), zombies (which run nothing; the sandbox's init may be one
// until the host's init reaps it) left out.
func procsInPidNS(ns string) []int {
	return hostProcs(func(dir string) bool {
		if l, err := os.Readlink(dir + "/ns/pid"); err != nil || l != ns {
			return false
		}
		stat, err := os.ReadFile(dir + "/stat")
		i := bytes.LastIndexByte(stat, ')')
		if err != nil || i < 0 || i+2 >= len(stat) {
			return true
		}
		if stat[i+2] == 'Z' || stat[i+2] == 'X' {
			return false
		}
		// A task in do_exit (PF_EXITING, field 9) never runs user code
		// again: bwrun's contain returns once the init is exiting alone
		// (initAlone), and on a loaded machine the kernel's teardown of
		// the sandbox's mounts, which that init does on its way out, is
		// still running when the test looks.
		f := bytes.Fields(stat[i+1:])
		flags, perr := strconv.ParseUint(string(f[min(6, len(f)-1)]), 10, 64)
		return perr != nil || len(f) < 7 || flags&pfExitingFlag == 0
	})
}

// pfExitingFlag is the kernel's PF_EXITING task flag (include/linux/sched.h).
const pfExitingFlag = 0x4

func fileSize(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return st.Size()
}

// bwrunStatus runs bwrun with --status-file (and opts) and returns the
// result and the report (readStatus).
func (f *fixture) bwrunStatus(inv string, opts []string, argv []string, c call) (result, bwruntime.Status) {
	f.t.Helper()
	f.n++
	sf := filepath.Join(f.base, fmt.Sprintf("status-%d.json", f.n))
	c.argv = append(append(append([]string{tool("bwrun"), "--status-file", sf}, opts...), inv, "--"), argv...)
	r := f.exec(c)
	f.noMarker(r)
	return r, f.readStatus(sf, r)
}

// readStatus reads the status report at sf, checks it is one line, valid
// against schema/status.schema.json and agrees with the exit status of r.
func (f *fixture) readStatus(sf string, r result) bwruntime.Status {
	f.t.Helper()
	data, err := os.ReadFile(sf)
	if err != nil {
		f.t.Fatalf("no status report: %v; %v", err, r)
	}
	if !bytes.HasSuffix(data, []byte("\n")) || bytes.Count(data, []byte("\n")) != 1 {
		f.t.Errorf("status report is not one line: %q", data)
	}
	sch := schematest.CompileFile(f.t, "../schema/status.schema.json", "https://bwpolicy.dev/schema/status.schema.json")
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		f.t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		f.t.Errorf("status report does not validate against schema/status.schema.json: %v\n%s", err, data)
	}
	var st bwruntime.Status
	if err := json.Unmarshal(data, &st); err != nil {
		f.t.Fatal(err)
	}
	if st.ExitStatus != r.code {
		f.t.Errorf("status says exit_status %d, the runtime exited %d", st.ExitStatus, r.code)
	}
	return st
}

// §4: the status channel tells the runtime's findings from the command's
// claims: a command that prints bwrun's stale message and exits 125 is
// "exited" 125; a real stale invocation is "stale" with the changed path
// and nothing runs; a failed set-up is "setup-failed"; an ordinary exit
// is "exited" with its status. The status file is never created through
// a symlink nor inside the writable set.
func testStatusChannel(t *testing.T, f *fixture) {
	inv, _ := f.compile("", call{})
	r, st := f.bwrunStatus(inv, nil, []string{"/bin/sh", "-c", `echo "bwrun: stale invocation: the host changed since it was compiled" >&2; exit 125`}, call{})
	if st.Outcome != "exited" || st.ExitStatus != 125 || len(st.StalePaths) != 0 {
		t.Errorf("spoofed stale message: status %+v, want exited 125; %v", st, r)
	}
	if _, st = f.bwrunStatus(inv, nil, []string{"/bin/sh", "-c", "exit 7"}, call{}); st.Outcome != "exited" || st.ExitStatus != 7 || st.Message != "" {
		t.Errorf("exit 7: status %+v", st)
	}
	if _, st = f.bwrunStatus(inv, nil, []string{"sbx-no-such-command"}, call{}); st.Outcome != "setup-failed" || st.ExitStatus != 127 {
		t.Errorf("missing command: status %+v", st)
	}
	f.write(f.expand("{home}/.kube/config"), "token: "+f.marker+"\n")
	r, st = f.bwrunStatus(inv, nil, []string{"/bin/sh", "-c", f.expand("echo ran > {proj}/ran.txt")}, call{})
	if st.Outcome != "stale" || st.ExitStatus != 125 || !slices.Contains(st.StalePaths, f.expand("{home}/.kube")) {
		t.Errorf("stale invocation: status %+v, want stale with %s; %v", st, f.expand("{home}/.kube"), r)
	}
	f.wantHostAbsent("{proj}/ran.txt")

	// Where the status may not go: inside the writable set, through a
	// symlink, over an existing file. bwrun refuses (125) and runs nothing.
	inv, _ = f.compile("", call{})
	f.symlink(f.expand("{base}/elsewhere.json"), f.expand("{base}/link.json"))
	f.write(f.expand("{base}/exists.json"), "old\n")
	for _, p := range []string{"{proj}/status.json", "{base}/link.json", "{base}/exists.json"} {
		r := f.exec(call{argv: []string{tool("bwrun"), "--status-file", p, inv, "--", "/bin/sh", "-c", f.expand("echo ran > {proj}/ran.txt")}})
		f.wantCode(r, 125)
		f.wantHostAbsent("{proj}/ran.txt")
	}
	f.wantHostAbsent("{proj}/status.json")
	f.wantHostAbsent("{base}/elsewhere.json")
	f.wantHostFile("{base}/exists.json", "old\n")

	// --status-fd: the caller's descriptor, out of the command's reach.
	sr, sw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	cmd, _, _ := f.command(t.Context(), call{argv: []string{tool("bwrun"), "--status-fd", "3", inv, "--", "/bin/sh", "-c", `ls -l /proc/self/fd/ | grep -c pipe; echo forged >&3; exit 3`}})
	cmd.ExtraFiles = []*os.File{sw}
	err = cmd.Run()
	sw.Close()
	got, _ := readAll(sr)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Errorf("--status-fd run: %v", err)
	}
	if strings.Contains(got, "forged") || !strings.HasPrefix(got, `{"outcome":"exited","exit_status":3,`) {
		t.Errorf("--status-fd 3 received %q", got)
	}
}

// A signal the caller sends ends the run as "signaled" (128+N), with the
// background processes gone.
func testStatusSignaled(t *testing.T, f *fixture) {
	inv, _ := f.compile("", call{})
	arg := f.sleepArg()
	sf := f.expand("{base}/signal-status.json")
	cmd, _, _ := f.command(t.Context(), call{argv: []string{tool("bwrun"), "--status-file", sf, inv, "--", "/bin/sh", "-c", "setsid sleep " + arg + " & sleep " + arg}})
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !waitFor(10*time.Second, func() bool { return len(hostProcsWithArg(arg)) == 2 }) {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the sleeps did not start: %v", hostProcsWithArg(arg))
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	r := result{argv: cmd.Args, code: cmd.ProcessState.ExitCode()}
	if st := f.readStatus(sf, r); st.Outcome != "signaled" || st.ExitStatus != 128+int(syscall.SIGTERM) {
		t.Errorf("SIGTERM: status %+v", st)
	}
	if pids := hostProcsWithArg(arg); len(pids) > 0 {
		for _, p := range pids {
			syscall.Kill(p, syscall.SIGKILL)
		}
		t.Errorf("processes %v outlived the signalled run", pids)
	}
}

func readAll(f *os.File) (string, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(f)
	return b.String(), err
}

// §4: --timeout kills the whole sandbox (a command and its background
// children) on expiry; the outcome is "timeout", the status 124. A
// command that ends in time is not affected.
func testTimeout(t *testing.T, f *fixture) {
	inv, _ := f.compile("", call{})
	arg := f.sleepArg()
	start := time.Now()
	r, st := f.bwrunStatus(inv, []string{"--timeout", "1.5"}, []string{"/bin/sh", "-c", "sleep " + arg + " & setsid sleep " + arg + " & sleep " + arg}, call{})
	if st.Outcome != "timeout" || st.ExitStatus != 124 || r.code != 124 {
		t.Errorf("timeout: status %+v; %v", st, r)
	}
	if el := time.Since(start); el < 1500*time.Millisecond || el > 15*time.Second {
		t.Errorf("the timeout of 1.5 s took %v", el)
	}
	if pids := hostProcsWithArg(arg); len(pids) > 0 {
		for _, p := range pids {
			syscall.Kill(p, syscall.SIGKILL)
		}
		t.Errorf("processes %v outlived the timeout", pids)
	}
	// bwpolicy run takes the same options.
	sf := f.expand("{base}/run-status.json")
	r = f.exec(call{argv: []string{tool("bwpolicy"), "run", "--status-file", sf, "--timeout", "1", "--", "/bin/sh", "-c", "sleep " + arg + " & sleep " + arg}})
	if st = f.readStatus(sf, r); st.Outcome != "timeout" || r.code != 124 {
		t.Errorf("bwpolicy run --timeout: status %+v; %v", st, r)
	}
	if pids := hostProcsWithArg(arg); len(pids) > 0 {
		for _, p := range pids {
			syscall.Kill(p, syscall.SIGKILL)
		}
		t.Errorf("bwpolicy run: processes %v outlived the timeout", pids)
	}
	if _, st = f.bwrunStatus(inv, []string{"--timeout=30"}, []string{"/bin/sh", "-c", "exit 4"}, call{}); st.Outcome != "exited" || st.ExitStatus != 4 {
		t.Errorf("in time: status %+v", st)
	}
}

// issue 12 §1: --chdir starts the command in the caller's directory:
// writable where the invocation makes it writable, read-only elsewhere
// (with a note), HOME included (issue 30 §4); a hidden or missing directory, or one in the sandbox's
// private /tmp, falls back to the compiled working directory with a note.
func testChdirOption(t *testing.T, f *fixture) {
	inv, _ := f.compile("", call{})
	for _, c := range []struct {
		dir, pwd, note string
		writable       bool
	}{
		{"{proj}/src", "{proj}/src", "", true},
		{"{home}/notes", "{home}/notes", "read-only", false},
		// HOME itself, the home layout's read-only tmpfs (issue 30):
		// the command runs there, read-only, as with Hermes' backend.
		{"{home}", "{home}", "read-only", false},
		// The home layout leaves .ssh out: it is not in the sandbox.
		{"{home}/.ssh", "{proj}", "private {home}", true},
		{"{home}/.aws/../.ssh", "{proj}", "private {home}", true},
		{"{proj}/no-such-dir", "{proj}", "no such directory", true},
		{"/tmp", "{proj}", "private /tmp", true},
	} {
		r, st := f.bwrunStatus(inv, []string{"--chdir", f.expand(c.dir)}, []string{"/bin/sh", "-c", prelude + `val pwd pwd; ok w 'echo x > ./chdir-probe'; ls`}, call{})
		w := want{"pwd": f.expand(c.pwd), "w": map[bool]string{true: "yes", false: "no"}[c.writable]}
		f.expect(r, w)
		// Only the --chdir notes: the runtime may add others (no
		// memory cgroup delegated here).
		notes := strings.Join(slices.DeleteFunc(slices.Clone(st.Warnings), func(w string) bool { return !strings.HasPrefix(w, "--chdir") }), "\n")
		if c.note == "" && notes != "" || !strings.Contains(notes, f.expand(c.note)) || st.Outcome != "exited" {
			t.Errorf("--chdir %s: status %+v, want a note %q", c.dir, st, c.note)
		}
		if strings.Contains(r.stdout, "id_rsa") {
			t.Errorf("--chdir %s listed the hidden directory: %v", c.dir, r)
		}
		os.Remove(f.expand(c.pwd) + "/chdir-probe")
	}
	if r := f.exec(call{argv: []string{tool("bwrun"), "--chdir", "relative", inv, "--", "true"}}); r.code != 125 {
		t.Errorf("--chdir relative: %v", r)
	}
}
