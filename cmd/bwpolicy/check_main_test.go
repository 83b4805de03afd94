package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/internal/bounded"
)

// bwpolicyBin is the bwpolicy binary the CLI tests run, built once by
// TestMain into a temporary directory (binDir, which tests put first on
// PATH so shell command lines find it as "bwpolicy").
var (
	bwpolicyBin string
	binDir      string
)

func TestMain(m *testing.M) {
	bounded.ServeIfChild() // the in-process tests' bounded evaluations re-execute this binary
	dir, err := os.MkdirTemp("", "bwpolicy-cli-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	binDir = dir
	bwpolicyBin = filepath.Join(dir, "bwpolicy")
	build := exec.Command("go", "build", "-o", bwpolicyBin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building bwpolicy:", err)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// sandboxEnv is an environment that makes results independent of the
// machine's user: HOME is a fresh directory with no Hermes config, and
// the CA-bundle variables are unset.
func sandboxEnv(t testing.TB) []string {
	t.Helper()
	home := t.TempDir()
	env := []string{"HOME=" + home, "PATH=" + binDir + string(os.PathListSeparator) + os.Getenv("PATH"), "LANG=C"}
	if runtime.GOOS == "linux" {
		if b := os.Getenv("BWPOLICY_BWRAP"); b != "" {
			env = append(env, "BWPOLICY_BWRAP="+b)
		}
	}
	return env
}

// result is one run of the binary.
type result struct {
	stdout, stderr string
	code           int
}

// run runs bwpolicy with args in dir (env from sandboxEnv).
func run(t testing.TB, dir string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bwpolicyBin, args...)
	cmd.Dir = dir
	cmd.Env = env
	return runCmd(t, cmd)
}

// runCmd runs cmd and returns its output and exit status; a command
// that could not be started ends the test.
func runCmd(t testing.TB, cmd *exec.Cmd) result {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running %s: %v", strings.Join(cmd.Args, " "), err)
	}
	return result{out.String(), errb.String(), code}
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", r.code, r.stdout, r.stderr)
}
