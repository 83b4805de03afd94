package runtime

import (
	"bytes"
	"context"
	"os/exec"
	"regexp"
	"strings"
	"time"
)

// BwrapInfo describes one bwrap binary: its version and the options its
// --help lists. Options are detected from --help, never from the version
// number, since distributions backport options (Debian's 0.8.0 has
// --bind-fd).
type BwrapInfo struct {
	Path    string          `json:"path"`
	Version string          `json:"version"`
	Options map[string]bool `json:"options"`
}

// Has reports whether the bwrap supports option (for example
// "--disable-userns").
func (b BwrapInfo) Has(option string) bool { return b.Options[option] }

var helpOption = regexp.MustCompile(`(?m)^\s+(--[a-z0-9][a-z0-9-]*)`)

// ParseHelp returns the options listed by `bwrap --help`.
func ParseHelp(help string) map[string]bool {
	out := map[string]bool{}
	for _, m := range helpOption.FindAllStringSubmatch(help, -1) {
		out[m[1]] = true
	}
	return out
}

// ProbeBwrap runs `bwrap --version` and `bwrap --help` (2 s timeout each).
// It is for the compiler and doctor, never for the per-command path.
func ProbeBwrap(path string) (BwrapInfo, error) {
	info := BwrapInfo{Path: path}
	ver, err := runQuiet(path, "--version")
	if err != nil {
		return info, err
	}
	info.Version = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(ver), "bubblewrap"))
	help, err := runQuiet(path, "--help")
	if err != nil {
		return info, err
	}
	info.Options = ParseHelp(help)
	return info, nil
}

func runQuiet(path string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	return out.String(), err
}
