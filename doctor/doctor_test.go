package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/internal/goldentest"
	"github.com/bwpolicy/bwpolicy/internal/testglob"
	"github.com/bwpolicy/bwpolicy/runtime/cgroup"
	"github.com/bwpolicy/bwpolicy/runtime/hostprobe"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

const help080 = `usage: bwrap [OPTIONS...] [--] COMMAND [ARGS...]

    --unshare-all                Unshare every namespace we support by default
    --unshare-user               Create new user namespace (may be automatically implied if not setuid)
    --share-net                  Retain the network namespace (can only combine with --unshare-all)
    --disable-userns             Disable further use of user namespaces inside sandbox
    --assert-userns-disabled     Fail unless further use of user namespace inside sandbox is disabled
    --chdir DIR                  Change directory to DIR
    --clearenv                   Unset all environment variables
    --setenv VAR VALUE           Set an environment variable
    --unsetenv VAR               Unset an environment variable
    --bind SRC DEST              Bind mount the host path SRC on DEST
    --ro-bind SRC DEST           Bind mount the host path SRC readonly on DEST
    --bind-fd FD DEST            Bind open directory or path fd on DEST
    --remount-ro DEST            Remount DEST as readonly; does not recursively remount
    --proc DEST                  Mount new procfs on DEST
    --dev DEST                   Mount new dev on DEST
    --tmpfs DEST                 Mount new tmpfs on DEST
    --ro-bind-data FD DEST       Copy from FD to file which is readonly bind-mounted on DEST
    --seccomp FD                 Load and use seccomp rules from FD (not repeatable)
    --add-seccomp-fd FD          Load and use seccomp rules from FD (repeatable)
    --symlink SRC DEST           Create symlink at DEST with target SRC
    --block-fd FD                Block on FD until some data to read is available
    --info-fd FD                 Write information about the running container to FD
    --json-status-fd FD          Write container status to FD as multiple JSON documents
    --new-session                Create a new terminal session
    --die-with-parent            Kills with SIGKILL child process (COMMAND) when bwrap or bwrap's parent dies.
    --perms OCTAL                Set permissions of next argument (--bind-data, --file, etc.)
    --size BYTES                 Set size of next argument (only for --tmpfs)
    --chmod OCTAL PATH           Change permissions of PATH (must already exist)
`

// fakeHost is a healthy Debian bookworm machine; tests break parts of it.
func fakeHost() (Host, map[string]string) {
	files := map[string]string{
		SysMaxUserNamespaces: "96365\n",
	}
	env := map[string]string{}
	h := Host{
		Getenv: func(k string) string { return env[k] },
		LookPath: func(name string) (string, error) {
			if name == "bwrap" {
				return "/usr/bin/bwrap", nil
			}
			return "", errors.New("executable file not found in $PATH")
		},
		ReadFile: func(p string) ([]byte, error) {
			if v, ok := files[p]; ok {
				return []byte(v), nil
			}
			return nil, os.ErrNotExist
		},
		Getuid:        func() int { return 1000 },
		KernelRelease: func() (string, error) { return "6.1.0-28-amd64", nil },
		LandlockABI:   func() (int, error) { return 3, nil },
		ProbeBwrap: func(p string) (hostprobe.BwrapInfo, error) {
			return hostprobe.BwrapInfo{Path: p, Version: "0.8.0", Options: hostprobe.ParseHelp(help080)}, nil
		},
		Sandbox: func(context.Context, string) (string, error) { return "", nil },
		Cgroup: func() cgroup.Support {
			return cgroup.Support{Available: true, Parent: "/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service", Detail: "delegated"}
		},
	}
	return h, files
}

func check(t *testing.T, r Report, name string) Check {
	t.Helper()
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no check %q in %+v", name, r)
	return Check{}
}

func TestHealthyHost(t *testing.T) {
	h, _ := fakeHost()
	h.LandlockABI = func() (int, error) { return 6, nil }
	r := Run(context.Background(), h)
	if !r.OK {
		t.Fatalf("healthy host failed: %+v", r)
	}
	opts := check(t, r, CheckBwrapOptions)
	for _, want := range []string{"present: --perms (0.5.0), --chmod (0.5.0), --clearenv (0.5.0), --add-seccomp-fd (0.6.0), --size (0.7.0), --disable-userns (0.8.0), --assert-userns-disabled (0.8.0), --bind-fd (0.10.0)",
		"absent: --argv0 (0.9.0), --overlay (0.11.0), --level-prefix (0.11.0)"} {
		if !strings.Contains(opts.Detail, want) {
			t.Errorf("options detail lacks %q:\n%s", want, opts.Detail)
		}
	}
	if r.Bwrap == nil || r.Bwrap.Version != "0.8.0" || r.Bwrap.Path != "/usr/bin/bwrap" {
		t.Fatalf("bwrap summary %+v", r.Bwrap)
	}
	var text bytes.Buffer
	r.WriteText(&text)
	if !strings.Contains(text.String(), "All checks passed.") || strings.Contains(text.String(), "FAIL") {
		t.Fatalf("text:\n%s", text.String())
	}
}

func TestMissingBwrap(t *testing.T) {
	h, _ := fakeHost()
	h.LookPath = func(string) (string, error) { return "", errors.New("not found") }
	r := Run(context.Background(), h)
	if r.OK || r.Bwrap != nil {
		t.Fatal("missing bwrap passed")
	}
	c := check(t, r, CheckBwrap)
	for _, want := range []string{"apt install bubblewrap", "dnf install bubblewrap", "pacman -S bubblewrap"} {
		if !strings.Contains(c.Fix, want) {
			t.Errorf("fix lacks %q: %s", want, c.Fix)
		}
	}
	if check(t, r, CheckSandboxProbe).OK {
		t.Error("probe passed without bwrap")
	}
	var text bytes.Buffer
	r.WriteText(&text)
	if !strings.Contains(text.String(), "[FAIL] bwrap") || !strings.Contains(text.String(), "fix: install bubblewrap") {
		t.Fatalf("text:\n%s", text.String())
	}
}

func TestBwrapFromEnv(t *testing.T) {
	h, _ := fakeHost()
	env := map[string]string{hostprobe.EnvBwrap: "/opt/bwrap-0.12/bwrap"}
	h.Getenv = func(k string) string { return env[k] }
	h.LookPath = func(name string) (string, error) {
		if name == "/opt/bwrap-0.12/bwrap" {
			return name, nil
		}
		return "", errors.New("not found")
	}
	r := Run(context.Background(), h)
	if c := check(t, r, CheckBwrap); !c.OK || !strings.HasPrefix(c.Detail, "/opt/bwrap-0.12/bwrap") {
		t.Fatalf("%+v", c)
	}
	env[hostprobe.EnvBwrap] = "/nope/bwrap"
	r = Run(context.Background(), h)
	if c := check(t, r, CheckBwrap); c.OK || !strings.Contains(c.Detail, "$BWPOLICY_BWRAP=/nope/bwrap") {
		t.Fatalf("%+v", c)
	}
}

func TestProbeFailsWithAppArmor(t *testing.T) {
	h, files := fakeHost()
	files[SysAppArmorRestrict] = "1\n"
	h.Sandbox = func(context.Context, string) (string, error) {
		return "bwrap: setting up uid map: Permission denied", errors.New("exit status 1")
	}
	r := Run(context.Background(), h)
	if r.OK {
		t.Fatal("passed")
	}
	p := check(t, r, CheckSandboxProbe)
	if p.OK || !strings.Contains(p.Detail, "setting up uid map: Permission denied") {
		t.Fatalf("probe: %+v", p)
	}
	u := check(t, r, CheckUserNamespaces)
	if u.OK || !strings.Contains(u.Detail, "kernel.apparmor_restrict_unprivileged_userns=1") || !strings.Contains(u.Fix, "apparmor") {
		t.Fatalf("userns: %+v", u)
	}

	// With an AppArmor profile for bwrap the probe passes: not a failure.
	h.Sandbox = func(context.Context, string) (string, error) { return "", nil }
	u = check(t, Run(context.Background(), h), CheckUserNamespaces)
	if !u.OK || !strings.Contains(u.Detail, "but the sandbox probe passed") {
		t.Fatalf("userns with profile: %+v", u)
	}
}

func TestUserNamespacesDisabled(t *testing.T) {
	h, files := fakeHost()
	files[SysUnprivUsernsClone] = "0"
	files[SysMaxUserNamespaces] = "0"
	h.Sandbox = func(context.Context, string) (string, error) {
		return "bwrap: No permissions to creating new namespace", errors.New("exit status 1")
	}
	u := check(t, Run(context.Background(), h), CheckUserNamespaces)
	if u.OK || !strings.Contains(u.Fix, "sysctl -w kernel.unprivileged_userns_clone=1") || !strings.Contains(u.Fix, "sysctl -w user.max_user_namespaces=") {
		t.Fatalf("%+v", u)
	}
}

func TestOldKernelAndLandlock(t *testing.T) {
	h, _ := fakeHost()
	h.KernelRelease = func() (string, error) { return "5.10.0-30-amd64", nil }
	h.LandlockABI = func() (int, error) { return 0, errors.New("kernel built without Landlock (ENOSYS)") }
	r := Run(context.Background(), h)
	n := check(t, r, CheckNProc)
	if n.OK || !strings.Contains(n.Detail, "5.10.0-30-amd64") || !strings.Contains(n.Fix, "5.14") {
		t.Fatalf("nproc: %+v", n)
	}
	l := check(t, r, CheckLandlock)
	if l.OK || !strings.Contains(l.Detail, "ENOSYS") {
		t.Fatalf("landlock: %+v", l)
	}
	if check(t, r, CheckNProc).OK || r.OK {
		t.Fatal("should fail")
	}
}

func TestMissingRequiredOption(t *testing.T) {
	h, _ := fakeHost()
	h.ProbeBwrap = func(p string) (hostprobe.BwrapInfo, error) {
		return hostprobe.BwrapInfo{Path: p, Version: "0.3.0", Options: hostprobe.ParseHelp("    --unshare-all  x\n    --ro-bind SRC DEST  y\n")}, nil
	}
	c := check(t, Run(context.Background(), h), CheckBwrapOptions)
	if c.OK || !strings.Contains(c.Detail, "--json-status-fd") || !strings.Contains(c.Fix, "upgrade bubblewrap") {
		t.Fatalf("%+v", c)
	}
}

func TestJSONStable(t *testing.T) {
	h, _ := fakeHost()
	var b bytes.Buffer
	if err := Run(context.Background(), h).WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var v struct {
		OK    bool `json:"ok"`
		Bwrap struct {
			Path    string   `json:"path"`
			Version string   `json:"version"`
			Options []string `json:"options"`
		} `json:"bwrap"`
		Checks []map[string]any `json:"checks"`
	}
	dec := json.NewDecoder(&b)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range v.Checks {
		names = append(names, c["name"].(string))
		if _, ok := c["ok"].(bool); !ok {
			t.Errorf("check without ok: %v", c)
		}
	}
	want := "bwrap bwrap-options sandbox-probe user-namespaces rlimit-nproc landlock yama-ptrace memory-cgroup"
	if strings.Join(names, " ") != want {
		t.Fatalf("check order %v, want %s", names, want)
	}
	if v.OK || v.Bwrap.Version != "0.8.0" || len(v.Bwrap.Options) == 0 {
		t.Fatalf("%+v", v) // Landlock ABI 3 fails the fake host
	}
}

// TestRealHost runs the checks on this machine (real bwrap, real probe).
func TestRealHost(t *testing.T) {
	if _, err := hostprobe.FindBwrap(); err != nil {
		if os.Getenv("BWPOLICY_NO_SANDBOX") == "1" {
			t.Skip("no bwrap (BWPOLICY_NO_SANDBOX=1)")
		}
		t.Fatalf("needs bwrap: %v", err)
	}
	r := Run(context.Background(), SystemHost())
	var text bytes.Buffer
	r.WriteText(&text)
	t.Logf("\n%s", text.String())
	for _, name := range []string{CheckBwrap, CheckBwrapOptions, CheckSandboxProbe} {
		if c := check(t, r, name); !c.OK {
			t.Errorf("%s failed on this host: %+v", name, c)
		}
	}
}

// The Yama check reports ptrace_scope (absent, 0..3) and what it means for
// the pid-1 takeover, in both formats; it is informational (never fails).
func TestYamaCheck(t *testing.T) {
	for _, c := range []struct {
		value string // "" = absent
		want  string
	}{
		{"", "no Yama"},
		{"0\n", "ptrace_scope=0"},
		{"1\n", "cannot take it over"},
		{"2\n", "CAP_SYS_PTRACE"},
		{"3\n", "no ptrace at all"},
	} {
		h, files := fakeHost()
		if c.value != "" {
			files[SysYamaPtraceScope] = c.value
		}
		r := Run(context.Background(), h)
		y := check(t, r, CheckYama)
		if !y.OK || !strings.Contains(y.Detail, c.want) {
			t.Errorf("ptrace_scope %q: %+v, want ok and %q", c.value, y, c.want)
		}
		open := c.value == "" || c.value == "0\n"
		if strings.Contains(y.Detail, "SIGKILLed") != open {
			t.Errorf("ptrace_scope %q: says the takeover is possible: %v, want %v: %s", c.value, !open, open, y.Detail)
		}
		var text, js bytes.Buffer
		if err := r.WriteText(&text); err != nil || !strings.Contains(text.String(), "yama-ptrace") || !strings.Contains(text.String(), c.want) {
			t.Errorf("text: %v\n%s", err, text.String())
		}
		if err := r.WriteJSON(&js); err != nil {
			t.Fatal(err)
		}
		var back Report
		if err := json.Unmarshal(js.Bytes(), &back); err != nil || check(t, back, CheckYama).Detail != y.Detail {
			t.Errorf("json: %v\n%s", err, js.String())
		}
	}
}

// TestMemoryCgroup: without a delegated memory controller the check
// fails and says what memory_mb then bounds; with one it passes.
func TestMemoryCgroup(t *testing.T) {
	h, _ := fakeHost()
	if c := check(t, Run(context.Background(), h), CheckMemoryCgroup); !c.OK {
		t.Errorf("delegated: %+v", c)
	}
	h.Cgroup = func() cgroup.Support {
		return cgroup.Support{Detail: "the memory controller is not in cgroup v2 here"}
	}
	r := Run(context.Background(), h)
	c := check(t, r, CheckMemoryCgroup)
	if c.OK || r.OK || !strings.Contains(c.Detail, "not the sandbox's total") || !strings.Contains(c.Fix, "Delegate=yes") {
		t.Errorf("not delegated: %+v", c)
	}
}

// TestRequiredOptionsFollowInvocations: every option a golden invocation
// uses is one doctor requires, or one the invocation itself names as
// version-gated (bwrap.requires); and every required option is used.
func TestRequiredOptionsFollowInvocations(t *testing.T) {
	files := testglob.Files(t, filepath.Join(goldentest.Dir(t), "*.json"))
	if len(files) < 20 {
		t.Fatalf("only %d golden invocations", len(files))
	}
	used := map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var inv invocation.Invocation
		if err := json.Unmarshal(data, &inv); err != nil || inv.Format == "" {
			continue // a refused case's golden is empty
		}
		for i := 0; i < len(inv.Bwrap.Args); {
			opt := inv.Bwrap.Args[i]
			n, ok := invocation.BwrapArity(opt)
			if !ok {
				t.Fatalf("%s: unknown option %s", f, opt)
			}
			used[opt] = true
			if !slices.Contains(requiredOptions, opt) && !slices.Contains(inv.Bwrap.Requires, opt) && opt != "--disable-userns" {
				t.Errorf("%s uses %s, which doctor neither requires nor the invocation lists as version-gated", f, opt)
			}
			i += 1 + n
		}
	}
	for _, o := range requiredOptions {
		if !used[o] {
			t.Errorf("doctor requires %s, which no golden invocation uses", o)
		}
	}
}
