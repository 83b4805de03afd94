package invocation

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const validJSON = `{
  "format": "bwpolicy.invocation/v1",
  "profile": "workspace",
  "bwrap": {
    "path": "/usr/bin/bwrap",
    "requires": ["--disable-userns"],
    "args": ["--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session",
             "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
             "--ro-bind-data", "6", "/home/u/.netrc", "--seccomp", "7",
             "--info-fd", "3", "--block-fd", "4", "--json-status-fd", "5"]
  },
  "fds": [{"fd": 3, "kind": "info"}, {"fd": 4, "kind": "block"}, {"fd": 5, "kind": "status"},
          {"fd": 6, "kind": "empty"}, {"fd": 7, "kind": "seccomp"}],
  "rlimits": {"as_bytes": 268435456, "cpu_seconds": 30, "nproc": 258},
  "env": {"unset": ["SSH_AUTH_SOCK"], "unset_patterns": ["*_TOKEN"], "allow": ["GH_TOKEN"], "set": {"TMPDIR": "/tmp"},
          "checked": {"AWS_CONFIG_FILE": "", "PATH": "sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae"}},
  "chdir": "/home/u/project",
  "writable": ["/home/u/project"],
  "hidden": ["/home/u/.netrc"],
  "preconditions": [
    {"path": "/home/u/.netrc", "kind": "file", "why": "S5"},
    {"path": "/home/u/.aws", "kind": "absent", "why": "S5"},
    {"path": "/home/u/.kube", "kind": "symlink", "target": "/srv/kube", "why": "S5"},
    {"path": "/home/u", "names": ["Documents", "project"], "kind": "dir", "why": "path component"}
  ],
  "seccomp": {"arch": "x86_64", "program": "BgAAAAAA/38=", "blocked": ["ptrace"]},
  "warnings": [],
  "explain": [{"n": 5, "rule": "S2", "reason": "namespaces", "source": "profiles/workspace.cue:3"},
              {"n": 20, "rule": "S3", "reason": "the rest", "source": "profiles/workspace.cue:4"}]
}`

func TestDecodeValid(t *testing.T) {
	inv, err := Decode([]byte(validJSON))
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if inv.Profile != "workspace" || inv.Rlimits.NProc != 258 || len(inv.FDs) != 5 {
		t.Fatalf("decoded wrongly: %+v", inv)
	}
	if got := len(inv.Seccomp.Program); got != 8 {
		t.Fatalf("seccomp program: %d bytes, want 8", got)
	}
	p := filepath.Join(t.TempDir(), "inv.json")
	if err := os.WriteFile(p, []byte(validJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(p); err != nil {
		t.Fatalf("Load: %v", err)
	}
}

func TestDecodeRejects(t *testing.T) {
	edit := func(old, new string) string {
		if !strings.Contains(validJSON, old) {
			t.Fatalf("test bug: %q not in validJSON", old)
		}
		return strings.Replace(validJSON, old, new, 1)
	}
	cases := []struct {
		name, input, want string
	}{
		{"empty", "", "empty file"},
		{"truncated", validJSON[:len(validJSON)/2], "truncated"},
		{"truncated at end", strings.TrimSuffix(validJSON, "}"), "truncated"},
		{"not json", "bwrap --unshare-all", "invalid JSON"},
		{"trailing data", validJSON + "{}", "unexpected data after"},
		{"unknown field", edit(`"chdir":`, `"chdir2": "x", "chdir":`), `unknown field "chdir2"`},
		{"unknown nested field", edit(`"as_bytes":`, `"as_kb": 1, "as_bytes":`), `unknown field "as_kb"`},
		{"wrong format", edit(`"bwpolicy.invocation/v1"`, `"bwpolicy.invocation/v2"`), `format "bwpolicy.invocation/v2" is not supported`},
		{"newer format with new fields", edit(`"bwpolicy.invocation/v1",`, `"bwpolicy.invocation/v2", "shiny": true,`), `format "bwpolicy.invocation/v2" is not supported`},
		{"no format", edit(`"format": "bwpolicy.invocation/v1",`, ``), `no "format" field`},
		{"wrong type", edit(`"nproc": 258`, `"nproc": "258"`), "rlimits.nproc"},
		{"relative bwrap", edit(`"/usr/bin/bwrap"`, `"bwrap"`), "not absolute"},
		{"empty args", `{"format":"bwpolicy.invocation/v1","bwrap":{"path":"/usr/bin/bwrap","args":[]}}`, "bwrap.args is empty"},
		{"fd below 3", edit(`{"fd": 6, "kind": "empty"}`, `{"fd": 2, "kind": "empty"}`), "fd 2 out of range"},
		{"duplicate fd", edit(`{"fd": 6, "kind": "empty"}`, `{"fd": 5, "kind": "empty"}`), "fd 5 listed twice"},
		{"fd not listed", edit(`"--seccomp", "7"`, `"--seccomp", "9"`), "fd 9 is not listed"},
		{"fd listed not used", edit(`"--ro-bind-data", "6", "/home/u/.netrc", `, ``), "no bwrap argument uses it"},
		{"fd kind mismatch", edit(`"--info-fd", "3", "--block-fd", "4"`, `"--info-fd", "4", "--block-fd", "3"`), `of kind "block"`},
		{"fd not a number", edit(`"--seccomp", "7"`, `"--seccomp", "seven"`), "not a file descriptor number"},
		{"unknown fd kind", edit(`"kind": "empty"`, `"kind": "tty"`), `unknown fd kind "tty"`},
		{"unknown option", edit(`"--new-session",`, `"--new-sesion",`), `unknown bwrap option "--new-sesion"`},
		{"missing value", edit(`"--json-status-fd", "5"]`, `"--json-status-fd", "5", "--tmpfs"]`), "needs 1 value"},
		{"double dash", edit(`"--new-session",`, `"--new-session", "--",`), `"--"`},
		{"weakening option", edit(`"--new-session",`, `"--new-session", "--not-a-security-boundary",`), "--not-a-security-boundary is refused"},
		{"unsupported fd option", edit(`"--new-session",`, `"--new-session", "--sync-fd", "6",`), "not supported by the runtime"},
		{"rlimits without block", edit(`"--info-fd", "3", "--block-fd", "4", "--json-status-fd", "5"]`, `"--json-status-fd", "5"]`), "listed in fds but no bwrap argument"},
		{"bad precondition kind", edit(`"kind": "absent"`, `"kind": "gone"`), `unknown kind "gone"`},
		{"symlink without target", edit(`"target": "/srv/kube", `, ``), "symlink without a target"},
		{"relative precondition", edit(`{"path": "/home/u/.aws"`, `{"path": "home/u/.aws"`), "not absolute"},
		{"names of a symlink", edit(`"names": ["Documents", "project"], "kind": "dir"`, `"names": ["Documents", "project"], "kind": "symlink", "target": "/x"`), "names are only for kinds"},
		{"names of absent paths", edit(`"names": ["Documents", "project"], "kind": "dir"`, `"names": ["Documents", "project"], "kind": "absent"`), "names are only for kinds"},
		{"empty names", edit(`"names": ["Documents", "project"]`, `"names": []`), "stands for nothing"},
		{"unsorted names", edit(`"names": ["Documents", "project"]`, `"names": ["project", "Documents"]`), "not sorted and unique"},
		{"duplicate names", edit(`"names": ["Documents", "project"]`, `"names": ["project", "project"]`), "not sorted and unique"},
		{"name with a slash", edit(`"names": ["Documents", "project"]`, `"names": ["Documents", "a/b"]`), "not one path element"},
		{"dot-dot name", edit(`"names": ["Documents", "project"]`, `"names": ["..", "Documents"]`), "not one path element"},
		{"empty name", edit(`"names": ["Documents", "project"]`, `"names": ["", "Documents"]`), "not one path element"},
		{"names row with a match", edit(`"names": ["Documents", "project"], "kind": "dir"`, `"names": ["Documents", "project"], "match": ["*"], "kind": "dir"`), "a kind and a why only"},
		{"names row not clean", edit(`{"path": "/home/u", "names"`, `{"path": "/home/u/", "names"`), "a kind and a why only"},
		{"explain past the arguments", edit(`"n": 20`, `"n": 21`), "goes past the 25 bwrap arguments"},
		{"explain short of the arguments", edit(`"n": 20`, `"n": 19`), "explain covers 24 of the 25"},
		{"explain negative", edit(`"n": 5`, `"n": -1`), "n -1"},
		{"explain args in the file", edit(`{"n": 5, `, `{"args": ["--unshare-all"], "n": 5, `), `unknown field "args"`},
		{"reason spelled another way", edit(`"kind": "file", "why": "S5"`, `"kind": "file", "why": "H9 (profile home)"`), `unknown reason "H9 (profile home)"`},
		{"unknown reason", edit(`"kind": "file", "why": "S5"`, `"kind": "file", "why": "S5-hermes"`), `unknown reason "S5-hermes"`},
		{"unknown scope", edit(`"kind": "file", "why": "S5"`, `"kind": "file", "why": "S5", "scope": "profile home"`), `unknown scope "profile home"`},
		{"bind on another reason", edit(`"kind": "file", "why": "S5"`, `"kind": "file", "why": "S5", "bind": 2`), `bind 2 on a precondition of reason "S5"`},
		{"negative bind", edit(`"kind": "file", "why": "S5"`, `"kind": "file", "why": "binds", "bind": -1`), `bind -1`},
		{"unknown explain rule", edit(`"rule": "S2"`, `"rule": "S2 "`), `explain[0]: unknown rule "S2 "`},
		{"checked digest not a digest", edit(`"AWS_CONFIG_FILE": ""`, `"AWS_CONFIG_FILE": "/home/u/.aws/config"`), `env.checked: AWS_CONFIG_FILE`},
		{"checked digest short", edit(`"AWS_CONFIG_FILE": ""`, `"AWS_CONFIG_FILE": "sha256:2c26"`), `env.checked: AWS_CONFIG_FILE`},
		{"checked digest upper case", edit(`"AWS_CONFIG_FILE": ""`, `"AWS_CONFIG_FILE": "sha256:2C26B46B68FFC68FF99B453C1D30413413422D706483BFA0F98A5E886266E7AE"`), `env.checked: AWS_CONFIG_FILE`},
		{"checked bad name", edit(`"AWS_CONFIG_FILE": ""`, `"A=B": ""`), `env.checked: invalid variable name`},
		{"bad pattern", edit(`"*_TOKEN"`, `"[_TOKEN"`), "unset_patterns"},
		{"seccomp fd without program", edit(`, "program": "BgAAAAAA/38="`, ``), "seccomp.program is empty"},
		{"requires non-option", edit(`"requires": ["--disable-userns"]`, `"requires": ["disable-userns"]`), "not a bwrap option"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			inv, err := Decode([]byte(c.input))
			if err == nil {
				t.Fatalf("Decode accepted it: %+v", inv)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not contain %q", err, c.want)
			}
		})
	}
}

func TestDecodeRlimitsNeedInfoAndBlock(t *testing.T) {
	in := `{"format":"bwpolicy.invocation/v1","bwrap":{"path":"/usr/bin/bwrap","args":["--unshare-all","--json-status-fd","5"]},
	        "fds":[{"fd":5,"kind":"status"}],"rlimits":{"nproc":10}}`
	_, err := Decode([]byte(in))
	if err == nil || !strings.Contains(err.Error(), "no info and block fds") {
		t.Fatalf("got %v", err)
	}
}

func TestDecodeTruncatedPosition(t *testing.T) {
	_, err := Decode([]byte("{\n  \"format\": \"bwpolicy.invocation/v1\",\n  \"bwrap\": {\"path\": "))
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("want a position on line 3, got %v", err)
	}
}

func TestLoadNamesFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "broken.json")
	os.WriteFile(p, []byte(`{"format": "bwpolicy.invocation/v1", "bwrap": `), 0o644)
	_, err := Load(p)
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("got %v", err)
	}
	_, err = Load(filepath.Join(t.TempDir(), "missing.json"))
	if err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Fatalf("got %v", err)
	}
}

// TestReadLimited: a file is read whole up to the limit, whatever its
// size against the first buffer; a pipe (no size) too; past the limit
// reading stops at limit bytes.
func TestReadLimited(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 511, 512, 513, 20000, 70000} {
		p := filepath.Join(dir, fmt.Sprintf("f%d", n))
		want := bytes.Repeat([]byte("x"), n)
		if err := os.WriteFile(p, want, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadLimited(f, 100000)
		f.Close()
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("size %d: read %d bytes, %v", n, len(got), err)
		}
		f, _ = os.Open(p)
		got, err = ReadLimited(f, 600)
		f.Close()
		if wantN := min(n, 600); err != nil || len(got) != wantN {
			t.Errorf("size %d, limit 600: read %d bytes, %v; want %d", n, len(got), err, wantN)
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() { w.Write(bytes.Repeat([]byte("y"), 3000)); w.Close() }()
	got, err := ReadLimited(r, 100000)
	r.Close()
	if err != nil || len(got) != 3000 {
		t.Errorf("pipe: read %d bytes, %v", len(got), err)
	}
}

// TestExpanded: a names row stands for one precondition per name, in
// order; rows without names are kept as they are.
func TestExpanded(t *testing.T) {
	inv, err := Decode([]byte(validJSON))
	if err != nil {
		t.Fatal(err)
	}
	ex := Expanded(inv.Preconditions)
	var got []string
	for _, p := range ex {
		got = append(got, p.Path+" "+p.Kind+" "+string(p.Why))
	}
	want := []string{"/home/u/.netrc file S5", "/home/u/.aws absent S5", "/home/u/.kube symlink S5",
		"/home/u/Documents dir path component", "/home/u/project dir path component"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Expanded:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if NamePath("/", "etc") != "/etc" {
		t.Fatal(`NamePath("/", "etc")`)
	}
	plain := inv.Preconditions[:3]
	if e := Expanded(plain); &e[0] != &plain[0] {
		t.Fatal("Expanded copied rows without names")
	}
}
