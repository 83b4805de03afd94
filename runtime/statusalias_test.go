package runtime

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"golang.org/x/sys/unix"
)

// TestStatusFileBindAlias: a --status-file in the working directory
// reached under another name — a bind mount of it elsewhere, which no
// comparison of path names can see — is refused (checkLocation compares
// device and inode with the sandbox's read-write binds), and nothing is
// left there. Control: the same file name in an unrelated directory is
// accepted. Needs root for the bind mount, made in a private mount
// namespace of a helper process (unshare -m).
func TestStatusFileBindAlias(t *testing.T) {
	if dir := os.Getenv("BWPOLICY_STATUS_ALIAS_DIR"); dir != "" {
		statusAliasHelper(t, dir)
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("a bind mount needs root; the suite runs as root in CI")
	}
	dir := t.TempDir()
	for _, d := range []string{"proj", "alias", "other"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("unshare", "-m", "--propagation", "private", os.Args[0], "-test.run=^TestStatusFileBindAlias$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "BWPOLICY_STATUS_ALIAS_DIR="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "alias refused") || !strings.Contains(string(out), "control accepted") {
		t.Fatalf("helper: %v\n%s", err, out)
	}
}

func statusAliasHelper(t *testing.T, dir string) {
	proj, alias := filepath.Join(dir, "proj"), filepath.Join(dir, "alias")
	if err := unix.Mount(proj, alias, "", unix.MS_BIND, ""); err != nil {
		t.Fatalf("bind mount: %v", err)
	}
	inv := &invocation.Invocation{Writable: []string{proj}, Bwrap: invocation.Bwrap{Args: []string{"--bind", proj, proj}}}
	if f, err := (RunFlags{StatusFD: -1, StatusFile: filepath.Join(alias, "s.json")}).OpenStatus(inv); err == nil {
		f.Close()
		t.Fatal("a status file in a bind-mount alias of the writable directory was accepted")
	} else if !strings.Contains(err.Error(), "the sandbox can write") && !strings.Contains(err.Error(), "writable set") {
		t.Fatalf("refused for another reason: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(proj, "s.json")); err == nil {
		t.Fatal("the refused status file was left in the working directory")
	}
	t.Log("alias refused")
	f, err := (RunFlags{StatusFD: -1, StatusFile: filepath.Join(dir, "other", "s.json")}).OpenStatus(inv)
	if err != nil {
		t.Fatalf("control: %v", err)
	}
	f.Close()
	t.Log("control accepted")
}
