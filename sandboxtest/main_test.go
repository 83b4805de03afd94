package sandboxtest

import (
	"bytes"
	"errors"
	"fmt"
	"go/build"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

var (
	// binDir holds bwpolicy, bwrun, sysprobe, sbxtool and alloc, readable
	// and executable by every user.
	binDir string
	// bwrapPath is the bwrap under test (absolute).
	bwrapPath string
	// bwrapVersion is what `bwrap --version` printed.
	bwrapVersion string
	// skipAll, when set, is why every test skips (bwrap missing and
	// BWPOLICY_NO_SANDBOX=1).
	skipAll string
)

// allocScript allocates N MiB in one piece (perl starts in a few MiB, so it
// runs under small RLIMIT_AS values, unlike a Go program).
const allocScript = `#!/usr/bin/perl
# alloc N: allocate N MiB in one string, touch it, report.
my $n = shift // die "usage: alloc MIB\n";
my $x = "x" x ($n * 1048576);
print "allocated ", length($x) >> 20, " MiB\n";
`

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	bw, err := findBwrap()
	if err != nil {
		if os.Getenv("BWPOLICY_NO_SANDBOX") == "1" {
			skipAll = fmt.Sprintf("%v; BWPOLICY_NO_SANDBOX=1: skipping the real-sandbox tests", err)
			return m.Run()
		}
		fmt.Fprintf(os.Stderr, "sandboxtest: %v: install bubblewrap (apt install bubblewrap), set BWPOLICY_BWRAP, or set BWPOLICY_NO_SANDBOX=1 to skip these tests\n", err)
		return 1
	}
	bwrapPath = bw
	out, err := exec.Command(bw, "--version").Output()
	if err != nil {
		fmt.Fprintf(os.Stderr, "sandboxtest: %s --version: %v\n", bw, err)
		return 1
	}
	bwrapVersion = strings.TrimSpace(string(out))

	// Not under /tmp: the sandbox's /tmp is a fresh tmpfs.
	dir, err := os.MkdirTemp("/var/tmp", "bwpolicy-sbx-bin-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "sandboxtest: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir = dir
	if err := buildTools(dir); err != nil {
		fmt.Fprintf(os.Stderr, "sandboxtest: %v\n", err)
		return 1
	}
	return m.Run()
}

// findBwrap returns $BWPOLICY_BWRAP, else bwrap on PATH, as an absolute
// path to an executable file.
func findBwrap() (string, error) {
	p := os.Getenv("BWPOLICY_BWRAP")
	if p == "" {
		var err error
		if p, err = exec.LookPath("bwrap"); err != nil {
			return "", fmt.Errorf("bwrap not found on PATH")
		}
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("bwrap %s: %w", abs, err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("bwrap %s is not an executable file", abs)
	}
	return abs, nil
}

// buildTools builds the binaries the tests run into dir and makes dir
// and everything in it readable by every user.
func buildTools(dir string) error {
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(build.Default.GOROOT, "bin", "go")
	}
	cmd := exec.Command(goBin, "build", "-o", dir+string(filepath.Separator),
		"github.com/bwpolicy/bwpolicy/cmd/bwpolicy",
		"github.com/bwpolicy/bwpolicy/cmd/bwrun",
		"github.com/bwpolicy/bwpolicy/internal/sysprobe",
		"./testdata/sbxtool")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build: %v\n%s", err, out.String())
	}
	if err := os.WriteFile(filepath.Join(dir, "alloc"), []byte(allocScript), 0o755); err != nil {
		return err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.Chmod(filepath.Join(dir, e.Name()), 0o755); err != nil {
			return err
		}
	}
	for _, name := range []string{"bwpolicy", "bwrun", "sysprobe", "sbxtool", "alloc"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("after go build: %w", err)
		}
	}
	return nil
}

// tool is the path of one of the binaries TestMain built.
func tool(name string) string { return filepath.Join(binDir, name) }

// identity is a user the scenarios run as.
type identity struct {
	name     string              // "root" or "user"
	cred     *syscall.Credential // nil: this process's own identity
	uid, gid int
	login    string
}

// identities: as root, root and the unprivileged user bwtest (created
// with useradd if missing); otherwise the current user alone.
func identities() ([]identity, error) {
	if os.Getuid() != 0 {
		u, err := user.Current()
		login := "user"
		if err == nil {
			login = u.Username
		}
		return []identity{{name: "user", uid: os.Getuid(), gid: os.Getgid(), login: login}}, nil
	}
	root := identity{name: "root", uid: 0, gid: 0, login: "root"}
	u, err := user.Lookup("bwtest")
	if err != nil {
		var unknown user.UnknownUserError
		if !errors.As(err, &unknown) {
			return nil, err
		}
		if out, err := exec.Command("useradd", "-m", "bwtest").CombinedOutput(); err != nil {
			return nil, fmt.Errorf("useradd -m bwtest: %v\n%s", err, out)
		}
		if u, err = user.Lookup("bwtest"); err != nil {
			return nil, err
		}
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("bwtest: uid %q gid %q", u.Uid, u.Gid)
	}
	unpriv := identity{name: "user", uid: uid, gid: gid, login: "bwtest",
		cred: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}}
	return selectIdentities(os.Getenv(identitiesVar), root, unpriv)
}

// identitiesVar names the identities a root run of the suite uses, as a
// comma-separated list of "root" and "user" (unset: both). make test
// runs the scenarios as the unprivileged user, the way agents run them;
// make ci adds the root run.
const identitiesVar = "BWPOLICY_SANDBOX_IDENTITIES"

// selectIdentities picks the identities spec names, in the order given
// by all; an unknown name, or a spec that names none, is an error (a
// typo must not run nothing).
func selectIdentities(spec string, all ...identity) ([]identity, error) {
	if strings.TrimSpace(spec) == "" {
		return all, nil
	}
	want := map[string]bool{}
	for _, w := range strings.Split(spec, ",") {
		want[strings.TrimSpace(w)] = true
	}
	var out []identity
	for _, id := range all {
		if want[id.name] {
			out = append(out, id)
			delete(want, id.name)
		}
	}
	for w := range want {
		return nil, fmt.Errorf("%s=%q: unknown identity %q (root, user)", identitiesVar, spec, w)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s=%q names no identity", identitiesVar, spec)
	}
	return out, nil
}
