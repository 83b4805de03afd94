package facts

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/profile"
	"github.com/bwpolicy/bwpolicy/settings"
)

// gitRepo makes a repository in a temporary directory with files (path →
// content) added to the index, then runs extra git commands.
func gitRepo(t *testing.T, files map[string]string, extra ...[]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed to write real index files: ", err)
	}
	dir := t.TempDir()
	run := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q")
	for p, c := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(filepath.Base(p), "untracked-") {
			run("add", p)
		}
	}
	for _, e := range extra {
		run(e...)
	}
	return dir
}

// TestReadIndexPaths: the paths of real index files in formats 2, 3
// (an intent-to-add entry sets the extended flag) and 4 (compressed
// paths), in git's order; garbage and truncation are errors.
func TestReadIndexPaths(t *testing.T) {
	files := map[string]string{".env": "A=1", "config/master.key": "k", "config/app.yml": "x", "src/a/very/long/name.go": "package a", "src/a/very/long/name_test.go": "package a"}
	want := []string{".env", "config/app.yml", "config/master.key", "src/a/very/long/name.go", "src/a/very/long/name_test.go"}
	for _, tc := range []struct {
		name  string
		extra [][]string
		want  []string
	}{
		{"v2", [][]string{{"update-index", "--index-version", "2"}}, want},
		{"v3", [][]string{{"update-index", "--index-version", "3"}, {"add", "-N", "config/untracked-b.txt"}}, append(append([]string{}, want[:3]...), append([]string{"config/untracked-b.txt"}, want[3:]...)...)},
		{"v4", [][]string{{"update-index", "--index-version", "4"}}, want},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := gitRepo(t, mergeFiles(files, tc.name == "v3"), tc.extra...)
			data, err := os.ReadFile(filepath.Join(repo, ".git", "index"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := ReadIndexPaths(data, 20)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
			// Truncated anywhere: an error, or (cut inside the extensions
			// after the entries) the full list; never a wrong one.
			for n := 0; n < len(data); n++ {
				if p, err := ReadIndexPaths(data[:n], 20); err == nil && !reflect.DeepEqual(p, tc.want) {
					t.Fatalf("truncated at %d: %q", n, p)
				}
			}
		})
	}
	if _, err := ReadIndexPaths([]byte("DIRC\x00\x00\x00\x09\x00\x00\x00\x01"), 20); err == nil {
		t.Error("version 9 parsed")
	}
	if _, err := ReadIndexPaths([]byte("DIRC\x00\x00\x00\x02\xff\xff\xff\xff"), 20); err == nil {
		t.Error("4 billion entries accepted")
	}
}

func mergeFiles(files map[string]string, notes bool) map[string]string {
	if !notes {
		return files
	}
	out := map[string]string{"config/untracked-b.txt": "n"}
	for k, v := range files {
		out[k] = v
	}
	return out
}

// TestTrackedHidden: a hide entry git tracks (.env, config/master.key)
// is reported with its repository and files; one deleted from the work
// tree but still in the index too; an untracked hidden file is not.
func TestTrackedHidden(t *testing.T) {
	repo := gitRepo(t, map[string]string{".env": "A=1", "config/master.key": "k", "config/old.key": "o", "README": "r"},
		[]string{"rm", "-q", "--cached", "README"})
	if err := os.Remove(filepath.Join(repo, "config/old.key")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "local.secret"), []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := &Host{FS: OS{}, UID: 1000, Home: "/nonexistent-home", HermesHome: "/nonexistent-home/.hermes", ProcessCwd: repo}
	s := &settings.Settings{Hide: []string{".env", "config/*.key", "*.secret", "README"}}
	f := Gather(h, s, &profile.Profile{HiddenHome: map[string]bool{}})
	var got []string
	for _, tr := range f.Tracked {
		got = append(got, string(tr.Why)+" "+tr.Hidden+": "+strings.Join(tr.Files, ","))
	}
	want := []string{"H4 .env: .env", "H4 config/*.key: config/master.key", "H4 config/*.key: config/old.key"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tracked:\n got %q\nwant %q", got, want)
	}
}
