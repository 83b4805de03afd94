package hostprobe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"golang.org/x/sys/unix"
)

// EnvBwrap is the environment variable that overrides which bwrap
// FindBwrap returns.
const EnvBwrap = "BWPOLICY_BWRAP"

// VersionGatedOptions are the bwrap options that not every bwrap in use
// supports, with the upstream version that introduced each.
// Detect them with ParseHelp, not from the version number: distributions
// backport some (Debian's 0.8.0 has --bind-fd).
var VersionGatedOptions = []struct {
	Option string
	Since  string
}{
	{"--perms", "0.5.0"},
	{"--chmod", "0.5.0"},
	{"--clearenv", "0.5.0"},
	{"--add-seccomp-fd", "0.6.0"},
	{"--size", "0.7.0"},
	{"--disable-userns", "0.8.0"},
	{"--assert-userns-disabled", "0.8.0"},
	{"--argv0", "0.9.0"},
	{"--bind-fd", "0.10.0"},
	{"--overlay", "0.11.0"},
	{"--level-prefix", "0.11.0"},
}

// FindBwrap returns the bwrap to use: $BWPOLICY_BWRAP when set (it must
// be an executable; a bare name is looked up in PATH), else "bwrap" from
// PATH, as an absolute path.
func FindBwrap() (string, error) {
	name := "bwrap"
	if v := os.Getenv(EnvBwrap); v != "" {
		name = v
	}
	p, err := exec.LookPath(name)
	if err != nil {
		if name != "bwrap" {
			return "", fmt.Errorf("$%s=%s: %v", EnvBwrap, name, err)
		}
		return "", fmt.Errorf("bwrap not found in PATH; %s", invocation.InstallHint)
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return p, nil
}

// BwrapInfo is what ProbeBwrap learned about a bwrap binary.
type BwrapInfo struct {
	Path string `json:"path"`
	// Version is the version number from `bwrap --version`
	// ("0.8.0"), or the whole line when it has an unexpected shape.
	Version string `json:"version"`
	// Options holds every option listed by `bwrap --help`.
	Options map[string]bool `json:"options"`
	// Identity is the file probed (the compiler records it in the
	// invocation; see Bwrap.Identity). It is host-specific and not part
	// of the policy input.
	Identity invocation.FileIdentity `json:"-"`
}

// Has reports whether bwrap listed opt in its --help.
func (b BwrapInfo) Has(opt string) bool { return b.Options[opt] }

// Missing returns the options of opts that this bwrap lacks, in order.
func (b BwrapInfo) Missing(opts []string) []string {
	var out []string
	for _, o := range opts {
		if !b.Options[o] {
			out = append(out, o)
		}
	}
	return out
}

// SortedOptions returns the supported options, sorted.
func (b BwrapInfo) SortedOptions() []string {
	out := make([]string, 0, len(b.Options))
	for o, ok := range b.Options {
		if ok {
			out = append(out, o)
		}
	}
	sort.Strings(out)
	return out
}

// ParseHelp extracts the option names from `bwrap --help` output: every
// line whose first non-blank word starts with "--" contributes that word.
func ParseHelp(helpText string) map[string]bool {
	opts := map[string]bool{}
	for _, line := range strings.Split(helpText, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(f[0], "--") || len(f[0]) < 3 {
			continue
		}
		opts[strings.TrimRight(f[0], ",")] = true
	}
	return opts
}

// probeTimeout bounds each bwrap run of ProbeBwrap.
const probeTimeout = 5 * time.Second

// ProbeBwrap runs `bwrap --version` and `bwrap --help` (it does not create
// a sandbox) and reports the version and the supported options. It is too
// slow for the per-command path; the compiler and `bwpolicy doctor` use it.
func ProbeBwrap(path string) (BwrapInfo, error) {
	info := BwrapInfo{Path: path}
	before, err := StatIdentity(path)
	if err != nil {
		return info, err
	}
	info.Identity = before
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return info, fmt.Errorf("%s --version: %v", path, exitDetail(err))
	}
	line := strings.TrimSpace(string(out))
	info.Version = line
	if f := strings.Fields(line); len(f) == 2 && f[0] == "bubblewrap" {
		info.Version = f[1]
	}
	cmd := exec.CommandContext(ctx, path, "--help")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return info, fmt.Errorf("%s --help: %v", path, exitDetail(err))
	}
	help := stdout.String()
	if help == "" {
		help = stderr.String()
	}
	info.Options = ParseHelp(help)
	if len(info.Options) == 0 {
		return info, fmt.Errorf("%s --help lists no options: not bubblewrap?", path)
	}
	if after, err := StatIdentity(path); err != nil || after != before {
		return info, fmt.Errorf("%s changed while it was probed; probe again", path)
	}
	return info, nil
}

func exitDetail(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return fmt.Sprintf("%v: %s", err, strings.TrimSpace(string(ee.Stderr)))
	}
	return err.Error()
}

// IdentityOf returns the identity of a stat result (see StatIdentity).
func IdentityOf(st *unix.Stat_t) invocation.FileIdentity {
	return invocation.FileIdentity{Dev: st.Dev, Ino: st.Ino, Size: st.Size, MTime: st.Mtim.Nano()}
}

// StatIdentity returns the identity of the file at path (symlinks
// followed), as the compiler records it for bwrap.
func StatIdentity(path string) (invocation.FileIdentity, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return invocation.FileIdentity{}, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	return IdentityOf(&st), nil
}
