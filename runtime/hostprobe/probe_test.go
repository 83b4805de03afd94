package hostprobe

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

func TestParseHelp(t *testing.T) {
	got := ParseHelp(help080)
	want := map[string]bool{"--help": true, "--version": true, "--args": true, "--unshare-all": true,
		"--disable-userns": true, "--bind-fd": true, "--seccomp": true, "--add-seccomp-fd": true,
		"--perms": true, "--size": true, "--chmod": true}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ParseHelp:\n got %v\nwant %v", got, want)
	}
	got = ParseHelp(help011)
	if !got["--overlay"] || !got["--level-prefix"] || len(got) != 2 {
		t.Fatalf("0.11 lines: %v", got)
	}
	info := BwrapInfo{Path: "/x/bwrap", Version: "0.8.0", Options: ParseHelp(help080)}
	if m := info.Missing([]string{"--disable-userns", "--argv0", "--overlay"}); !reflect.DeepEqual(m, []string{"--argv0", "--overlay"}) {
		t.Fatalf("Missing: %v", m)
	}
	err := CheckRequires(&invocation.Invocation{Bwrap: invocation.Bwrap{Requires: []string{"--argv0"}}}, info)
	if err == nil || !strings.Contains(err.Error(), "lacks --argv0") {
		t.Fatalf("CheckRequires: %v", err)
	}
}

func TestProbeBwrap(t *testing.T) {
	bw, err := FindBwrap()
	if err != nil {
		if os.Getenv("BWPOLICY_NO_SANDBOX") == "1" {
			t.Skipf("no bwrap (BWPOLICY_NO_SANDBOX=1): %v", err)
		}
		t.Fatalf("the probe test needs bwrap (set BWPOLICY_NO_SANDBOX=1 to skip it): %v", err)
	}
	info, err := ProbeBwrap(bw)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("bwrap %s at %s: %d options", info.Version, info.Path, len(info.Options))
	for _, o := range []string{"--unshare-all", "--ro-bind", "--info-fd", "--block-fd", "--json-status-fd", "--die-with-parent"} {
		if !info.Has(o) {
			t.Errorf("probe lacks %s", o)
		}
	}
	if info.Version == "" || strings.Contains(info.Version, "bubblewrap") {
		t.Errorf("version %q", info.Version)
	}
	if _, err := ProbeBwrap("/nonexistent/bwrap"); err == nil {
		t.Error("probing a missing bwrap succeeded")
	}
}

func TestParseKernelVersion(t *testing.T) {
	for in, want := range map[string][2]int{
		"6.18.44-fc-v657":       {6, 18},
		"5.14.0-427.el9.x86_64": {5, 14},
		"5.4.0":                 {5, 4},
		"4.19-rc1":              {4, 19},
		"6.1":                   {6, 1},
	} {
		ma, mi, err := ParseKernelVersion(in)
		if err != nil || ma != want[0] || mi != want[1] {
			t.Errorf("%s: %d.%d %v, want %v", in, ma, mi, err, want)
		}
	}
	for _, bad := range []string{"", "6", "x.y"} {
		if _, _, err := ParseKernelVersion(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if _, err := KernelAtLeast(2, 6); err != nil {
		t.Fatal(err)
	}
}

func TestLandlockABI(t *testing.T) {
	abi, err := LandlockABI()
	t.Logf("Landlock ABI %d (%v)", abi, err)
	if abi < 0 || (abi == 0) != (err != nil) {
		t.Fatalf("abi %d, err %v", abi, err)
	}
}

// help080 is the --help text of bwrap 0.8.0 (Debian bookworm) plus the
// options 0.11 added, in the layout bwrap prints them.
const help080 = `usage: bwrap [OPTIONS...] [--] COMMAND [ARGS...]

    --help                       Print this help
    --version                    Print version
    --args FD                    Parse NUL-separated args from FD
    --unshare-all                Unshare every namespace we support by default
    --disable-userns             Disable further use of user namespaces inside sandbox
    --bind-fd FD DEST            Bind open directory or path fd on DEST
    --seccomp FD                 Load and use seccomp rules from FD (not repeatable)
    --add-seccomp-fd FD          Load and use seccomp rules from FD (repeatable)
    --perms OCTAL                Set permissions of next argument (--bind-data, --file, etc.)
    --size BYTES                 Set size of next argument (only for --tmpfs)
    --chmod OCTAL PATH           Change permissions of PATH (must already exist)
`

const help011 = `    --overlay RWSRC WORKDIR DEST Mount overlayfs on DEST, with RWSRC as the host path for writes and
                                 WORKDIR an empty directory on the same filesystem as RWSRC
    --level-prefix               Prepend e.g. <3> to diagnostic messages
`

// CheckRequires returns an error naming every option of inv.Bwrap.Requires
// that the probed bwrap lacks.
func CheckRequires(inv *invocation.Invocation, info BwrapInfo) error {
	if m := info.Missing(inv.Bwrap.Requires); len(m) > 0 {
		return fmt.Errorf("bwrap at %s (version %s) lacks %s required by this invocation; recompile or upgrade bubblewrap", info.Path, info.Version, strings.Join(m, ", "))
	}
	return nil
}
