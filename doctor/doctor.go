// Package doctor checks whether this host can run bwpolicy's sandboxes:
// bwrap present and which of its version-gated options it has, a real
// sandboxed command, unprivileged user namespaces (and Ubuntu's AppArmor
// restriction), RLIMIT_NPROC per user namespace, the Landlock ABI, Yama's
// ptrace_scope (whether a command can take over the sandbox's pid 1), and
// a delegated cgroup v2 memory controller.
// `bwpolicy doctor` prints its Report.
package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/bwpolicy/bwpolicy/runtime/cgroup"
	"github.com/bwpolicy/bwpolicy/runtime/hostprobe"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// Check is the result of one check.
type Check struct {
	// Name is a stable identifier ("bwrap", "sandbox-probe", ...).
	Name string `json:"name"`
	OK   bool   `json:"ok"`
	// Detail says what was found.
	Detail string `json:"detail"`
	// Fix says how to repair a failed check (empty when OK).
	Fix string `json:"fix,omitempty"`
}

// BwrapSummary is what the report says about the bwrap found.
type BwrapSummary struct {
	Path    string   `json:"path"`
	Version string   `json:"version"`
	Options []string `json:"options"`
}

// Report is the outcome of Run. Its JSON form is stable: fields are only
// ever added.
type Report struct {
	// OK is true when every check passed.
	OK     bool          `json:"ok"`
	Bwrap  *BwrapSummary `json:"bwrap"`
	Checks []Check       `json:"checks"`
}

// Check names, in report order.
const (
	CheckBwrap          = "bwrap"
	CheckBwrapOptions   = "bwrap-options"
	CheckSandboxProbe   = "sandbox-probe"
	CheckUserNamespaces = "user-namespaces"
	CheckNProc          = "rlimit-nproc"
	CheckLandlock       = "landlock"
	CheckMemoryCgroup   = "memory-cgroup"
)

// Host is how the checks see the machine; tests substitute parts of it.
type Host struct {
	Getenv        func(string) string
	LookPath      func(string) (string, error)
	ReadFile      func(string) ([]byte, error)
	Getuid        func() int
	KernelRelease func() (string, error)
	LandlockABI   func() (int, error)
	ProbeBwrap    func(path string) (hostprobe.BwrapInfo, error)
	// Sandbox runs `bwrap ProbeArgs... -- true` and returns bwrap's
	// stderr with the error.
	Sandbox func(ctx context.Context, bwrap string) (stderr string, err error)
	// Cgroup reports whether a sandbox can get a memory cgroup of its own.
	Cgroup func() cgroup.Support
}

// SystemHost is the real machine.
func SystemHost() Host {
	return Host{
		Getenv:        os.Getenv,
		LookPath:      exec.LookPath,
		ReadFile:      os.ReadFile,
		Getuid:        os.Getuid,
		KernelRelease: hostprobe.KernelRelease,
		LandlockABI:   hostprobe.LandlockABI,
		ProbeBwrap:    hostprobe.ProbeBwrap,
		Sandbox:       sandboxProbe,
		Cgroup:        cgroup.Detect,
	}
}

// ProbeArgs is the real probe: a sandbox with every namespace, the host
// root read-only, fresh /dev and /proc.
var ProbeArgs = []string{"--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"}

// ProbeTimeout bounds the real probe.
const ProbeTimeout = 5 * time.Second

func sandboxProbe(ctx context.Context, bwrap string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bwrap, append(append([]string(nil), ProbeArgs...), "--", "true")...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("timed out after %v", ProbeTimeout)
	}
	return strings.TrimSpace(stderr.String()), err
}

// requiredOptions are the options every compiled invocation uses; a bwrap
// without them cannot run bwpolicy's sandboxes at all.
// (The version-gated ones, --disable-userns and --size, are reported on
// their own rows; a test holds this list to what the golden invocations
// use.)
var requiredOptions = []string{"--unshare-all", "--share-net", "--unshare-user", "--die-with-parent", "--new-session",
	"--ro-bind", "--bind", "--dev", "--proc", "--tmpfs", "--remount-ro", "--ro-bind-data", "--symlink",
	"--chdir", "--info-fd", "--block-fd", "--json-status-fd", "--seccomp"}

// Run performs every check.
func Run(ctx context.Context, h Host) Report {
	var r Report
	add := func(c Check) {
		if c.OK {
			c.Fix = ""
		}
		r.Checks = append(r.Checks, c)
	}

	// bwrap and its options.
	bwrapPath, findErr := findBwrap(h)
	var info hostprobe.BwrapInfo
	var probeErr error
	if findErr == nil {
		info, probeErr = h.ProbeBwrap(bwrapPath)
	}
	switch {
	case findErr != nil:
		add(Check{Name: CheckBwrap, Detail: findErr.Error(), Fix: invocation.InstallHint + ", or point $" + hostprobe.EnvBwrap + " at a bwrap binary"})
		add(Check{Name: CheckBwrapOptions, Detail: "no bwrap to examine", Fix: invocation.InstallHint})
	case probeErr != nil:
		add(Check{Name: CheckBwrap, Detail: fmt.Sprintf("%s does not work: %v", bwrapPath, probeErr), Fix: "reinstall bubblewrap; " + invocation.InstallHint})
		add(Check{Name: CheckBwrapOptions, Detail: "cannot read bwrap --help", Fix: "reinstall bubblewrap"})
	default:
		r.Bwrap = &BwrapSummary{Path: info.Path, Version: info.Version, Options: info.SortedOptions()}
		add(Check{Name: CheckBwrap, OK: true, Detail: fmt.Sprintf("%s, version %s", info.Path, info.Version)})
		add(optionsCheck(info))
	}

	// The real probe.
	probeOK := false
	if findErr != nil || probeErr != nil {
		add(Check{Name: CheckSandboxProbe, Detail: "skipped: no working bwrap", Fix: invocation.InstallHint})
	} else {
		stderr, err := h.Sandbox(ctx, bwrapPath)
		if err == nil {
			probeOK = true
			add(Check{Name: CheckSandboxProbe, OK: true, Detail: "bwrap " + strings.Join(ProbeArgs, " ") + " -- true: ok"})
		} else {
			detail := fmt.Sprintf("bwrap %s -- true failed: %v", strings.Join(ProbeArgs, " "), err)
			if stderr != "" {
				detail += ": " + stderr
			}
			add(Check{Name: CheckSandboxProbe, Detail: detail,
				Fix: "no command will run until the probe passes (bwpolicy never runs a command unsandboxed); see the user-namespaces check and bwrap's message"})
		}
	}

	add(userNamespacesCheck(h, probeOK))
	add(nprocCheck(h))
	add(landlockCheck(h))
	add(yamaCheck(h))
	add(memoryCgroupCheck(h))

	r.OK = true
	for _, c := range r.Checks {
		r.OK = r.OK && c.OK
	}
	return r
}

func findBwrap(h Host) (string, error) {
	name := "bwrap"
	if v := h.Getenv(hostprobe.EnvBwrap); v != "" {
		name = v
	}
	p, err := h.LookPath(name)
	if err != nil {
		if name != "bwrap" {
			return "", fmt.Errorf("$%s=%s: %v", hostprobe.EnvBwrap, name, err)
		}
		return "", errors.New("bwrap not found in PATH")
	}
	return p, nil
}

func optionsCheck(info hostprobe.BwrapInfo) Check {
	c := Check{Name: CheckBwrapOptions, OK: true}
	var present, absent []string
	for _, g := range hostprobe.VersionGatedOptions {
		s := fmt.Sprintf("%s (%s)", g.Option, g.Since)
		if info.Has(g.Option) {
			present = append(present, s)
		} else {
			absent = append(absent, s)
		}
	}
	c.Detail = "version-gated options present: " + listOrNone(present) + "; absent: " + listOrNone(absent)
	if len(absent) > 0 {
		c.Detail += " (compiled invocations leave out what needs them)"
	}
	if missing := info.Missing(requiredOptions); len(missing) > 0 {
		c.OK = false
		c.Detail = "lacks options every sandbox needs: " + strings.Join(missing, ", ") + "; " + c.Detail
		c.Fix = "upgrade bubblewrap to 0.5.0 or later; " + invocation.InstallHint
	}
	return c
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}

// readInt reads a /proc/sys value; ok is false when the file is absent.
func readInt(h Host, path string) (v int, ok bool) {
	b, err := h.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err = strconv.Atoi(strings.TrimSpace(string(b)))
	return v, err == nil
}

// The /proc/sys files the user-namespaces check reads.
const (
	SysUnprivUsernsClone = "/proc/sys/kernel/unprivileged_userns_clone"
	SysMaxUserNamespaces = "/proc/sys/user/max_user_namespaces"
	SysAppArmorRestrict  = "/proc/sys/kernel/apparmor_restrict_unprivileged_userns"
)

func userNamespacesCheck(h Host, probeOK bool) Check {
	c := Check{Name: CheckUserNamespaces}
	var facts, problems, fixes []string
	if v, ok := readInt(h, SysUnprivUsernsClone); ok {
		facts = append(facts, fmt.Sprintf("kernel.unprivileged_userns_clone=%d", v))
		if v == 0 {
			problems = append(problems, "unprivileged user namespaces are disabled")
			fixes = append(fixes, "sysctl -w kernel.unprivileged_userns_clone=1")
		}
	}
	if v, ok := readInt(h, SysMaxUserNamespaces); ok {
		facts = append(facts, fmt.Sprintf("user.max_user_namespaces=%d", v))
		if v == 0 {
			problems = append(problems, "user.max_user_namespaces is 0")
			fixes = append(fixes, "sysctl -w user.max_user_namespaces=15000")
		}
	} else {
		problems = append(problems, "no "+SysMaxUserNamespaces+" (kernel without user namespaces?)")
		fixes = append(fixes, "use a kernel with CONFIG_USER_NS=y")
	}
	if v, ok := readInt(h, SysAppArmorRestrict); ok {
		facts = append(facts, fmt.Sprintf("kernel.apparmor_restrict_unprivileged_userns=%d", v))
		if v != 0 {
			problems = append(problems, "AppArmor restricts unprivileged user namespaces (Ubuntu 23.10+/24.04+)")
			fixes = append(fixes, "give bwrap an AppArmor profile that allows user namespaces, e.g. /etc/apparmor.d/bwrap containing `abi <abi/4.0>, include <tunables/global> profile bwrap /usr/bin/bwrap flags=(unconfined) { userns, }` loaded with `apparmor_parser -r /etc/apparmor.d/bwrap`; or (less safe, machine-wide) `sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`")
		}
	}
	c.Detail = strings.Join(facts, ", ")
	if c.Detail == "" {
		c.Detail = "no user-namespace sysctls found"
	}
	switch {
	case len(problems) == 0:
		c.OK = true
	case probeOK:
		// The probe created a user namespace anyway (e.g. an AppArmor
		// profile grants bwrap the permission).
		c.OK = true
		c.Detail += "; " + strings.Join(problems, "; ") + ", but the sandbox probe passed"
	default:
		c.Detail += "; " + strings.Join(problems, "; ")
		c.Fix = strings.Join(fixes, "; ")
	}
	if h.Getuid() == 0 {
		c.Detail += " (checked as root: an ordinary user may still be refused)"
	}
	return c
}

func nprocCheck(h Host) Check {
	c := Check{Name: CheckNProc}
	rel, err := h.KernelRelease()
	if err != nil {
		c.Detail = err.Error()
		c.Fix = "cannot tell whether RLIMIT_NPROC counts per user namespace"
		return c
	}
	ma, mi, err := hostprobe.ParseKernelVersion(rel)
	if err != nil {
		c.Detail = err.Error()
		return c
	}
	if ma > 5 || (ma == 5 && mi >= 14) {
		c.OK = true
		c.Detail = fmt.Sprintf("kernel %s counts RLIMIT_NPROC per user namespace: max_procs is enforced inside each sandbox (set with prlimit on its first process)", rel)
		if h.Getuid() == 0 {
			c.Detail += "; but not for root: the kernel exempts uid 0 from RLIMIT_NPROC, so run the agent as an ordinary user to enforce max_procs"
		}
	} else {
		c.Detail = fmt.Sprintf("kernel %s counts RLIMIT_NPROC per user across the machine: max_procs is skipped (with a warning); memory_mb and cpu_seconds still apply", rel)
		c.Fix = "upgrade to Linux " + hostprobe.NProcPerUserNSSince + " or later to enforce max_procs"
	}
	return c
}

func landlockCheck(h Host) Check {
	c := Check{Name: CheckLandlock}
	abi, err := h.LandlockABI()
	switch {
	case abi <= 0:
		c.Detail = "Landlock unavailable"
		if err != nil {
			c.Detail += ": " + err.Error()
		}
		c.Fix = "TCP port allowlists and socket/signal scoping (H3) need Landlock ABI 4+ (Linux 6.7+) with landlock in the lsm= boot parameter"
	case abi < 4:
		c.Detail = fmt.Sprintf("Landlock ABI %d: no TCP port rules (ABI 4) or scoping (ABI 6); H3 rules are not enforced", abi)
		c.Fix = "upgrade to Linux 6.7+ (ABI 4) for port allowlists, 6.12+ (ABI 6) for scoping"
	case abi < 6:
		c.OK = true
		c.Detail = fmt.Sprintf("Landlock ABI %d: TCP port rules available; abstract-socket/signal scoping needs ABI 6 (Linux 6.12+)", abi)
	default:
		c.OK = true
		c.Detail = fmt.Sprintf("Landlock ABI %d: TCP port rules and abstract-socket/signal scoping available", abi)
	}
	return c
}

// memoryCgroupCheck says whether memory_mb can bound the whole sandbox
// (a cgroup v2 memory controller delegated to the user), or only each
// process's address space and each tmpfs.
func memoryCgroupCheck(h Host) Check {
	c := Check{Name: CheckMemoryCgroup}
	if h.Cgroup == nil {
		c.Detail = "not checked"
		return c
	}
	s := h.Cgroup()
	c.OK = s.Available
	c.Detail = s.Detail
	if !s.Available {
		c.Detail = "no memory cgroup per sandbox: " + s.Detail + "; memory_mb bounds each process's address space (RLIMIT_AS) and tmp_mb each tmpfs, not the sandbox's total"
		c.Fix = "boot with cgroup v2 only (systemd.unified_cgroup_hierarchy=1) and run the agent in a unit with Delegate=yes (systemd-run --user -p Delegate=yes ...)"
	}
	return c
}

// WriteText prints the report for a person.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString("bwpolicy doctor\n\n")
	failed := 0
	for _, c := range r.Checks {
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
			failed++
		}
		fmt.Fprintf(&b, "[%s] %-16s %s\n", mark, c.Name, c.Detail)
		if c.Fix != "" {
			fmt.Fprintf(&b, "       %-16s fix: %s\n", "", c.Fix)
		}
	}
	b.WriteString("\n")
	switch failed {
	case 0:
		b.WriteString("All checks passed.\n")
	case 1:
		b.WriteString("1 check failed.\n")
	default:
		fmt.Fprintf(&b, "%d checks failed.\n", failed)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON prints the report as indented JSON.
func (r Report) WriteJSON(w io.Writer) error {
	if r.Checks == nil {
		r.Checks = []Check{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
