package runtime

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// exposeTree builds a hidden "Hermes home" with a spillover root: two
// files in it, a symlink to a secret outside, a directory symlink, and
// the secret. It returns the home, the spillover root and the secret.
func exposeTree(t *testing.T) (home, spill, secret string) {
	t.Helper()
	dir := testBinDir(t)
	home = filepath.Join(dir, "home")
	spill = filepath.Join(home, "cache", "spillover")
	secret = filepath.Join(dir, "secret")
	for _, d := range []string{spill, filepath.Join(dir, "elsewhere")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, v := range map[string]string{filepath.Join(spill, "a"): "exposed-a\n", filepath.Join(spill, "b"): "sibling-b\n",
		secret: "SECRET\n", filepath.Join(dir, "elsewhere", "x"): "SECRET-X\n"} {
		if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(secret, filepath.Join(spill, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "elsewhere"), filepath.Join(spill, "sub")); err != nil {
		t.Fatal(err)
	}
	return home, spill, secret
}

// exposeInv hides home behind a read-only tmpfs (as the compiler hides
// the Hermes home) and declares spill as the expose root.
func exposeInv(t *testing.T, home, spill string, bindFD bool) *invocation.Invocation {
	inv := testInv(t, "--tmpfs", home, "--remount-ro", home)
	inv.Hidden = []string{home}
	inv.Expose = &invocation.Expose{Roots: []string{spill}, BindFD: bindFD}
	return inv
}

// TestSandboxExpose: `--expose FILE` shows that one file, read-only, at
// its path inside a directory the sandbox hides; its sibling stays
// hidden; a symlink on the way (the file itself or a directory) and a
// file outside the declared roots are refused before anything runs.
// Control: the symlinks do lead to the secrets on the host, and without
// --expose the file is hidden too. Both ways of binding: through the
// descriptor (--ro-bind-fd) and as a copy (--ro-bind-data).
func TestSandboxExpose(t *testing.T) {
	home, spill, secret := exposeTree(t)
	if b, _ := os.ReadFile(filepath.Join(spill, "link")); string(b) != "SECRET\n" {
		t.Fatalf("control: the symlink does not lead to the secret: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(spill, "sub", "x")); string(b) != "SECRET-X\n" {
		t.Fatalf("control: the directory symlink does not lead to the secret: %q", b)
	}
	script := `cat ` + spill + `/a || echo no-a; cat ` + spill + `/b 2>/dev/null || echo no-b
echo changed > ` + spill + `/a 2>/dev/null && echo wrote-a; ls ` + spill + ` 2>/dev/null; true`
	for _, bindFD := range []bool{true, false} {
		name := map[bool]string{true: "ro-bind-fd", false: "ro-bind-data"}[bindFD]
		t.Run(name, func(t *testing.T) {
			inv := exposeInv(t, home, spill, bindFD)
			res := runOpts(t, inv, Options{}, "/bin/sh", "-c", script)
			if res.code != 0 || !strings.Contains(res.stdout, "no-a") || !strings.Contains(res.stdout, "no-b") {
				t.Fatalf("control, no --expose: %d %q: want both hidden", res.code, res.stdout)
			}
			res = runOpts(t, inv, Options{Expose: []string{filepath.Join(spill, "a")}}, "/bin/sh", "-c", script)
			if res.code != 0 || !strings.Contains(res.stdout, "exposed-a") || !strings.Contains(res.stdout, "no-b") ||
				strings.Contains(res.stdout, "sibling-b") || strings.Contains(res.stdout, "wrote-a") {
				t.Errorf("--expose a: %d %q %v: want a readable, read-only, b hidden", res.code, res.stdout, res.err)
			}
			if b, _ := os.ReadFile(filepath.Join(spill, "a")); string(b) != "exposed-a\n" {
				t.Errorf("the exposed file changed on the host: %q", b)
			}
			for _, bad := range []struct{ file, want string }{
				{filepath.Join(spill, "link"), "symlink"},
				{filepath.Join(spill, "sub", "x"), "symlink"},
				{secret, "not below the roots"},
				{spill, "not below the roots"},
				{filepath.Join(spill, "cache"), "no such file"},
				{filepath.Join(home, "cache"), "not below the roots"},
			} {
				res := runOpts(t, inv, Options{Expose: []string{bad.file}}, "/bin/sh", "-c", "echo ran; cat "+bad.file)
				if res.code != ExitSetup || res.err == nil || !strings.Contains(res.err.Error(), bad.want) || strings.Contains(res.stdout, "ran") {
					t.Errorf("--expose %s: %d %v %q: want 125 (%s) and no command run", bad.file, res.code, res.err, res.stdout, bad.want)
				}
			}
			if !slices.Equal(inv.Bwrap.Args, exposeInv(t, home, spill, bindFD).Bwrap.Args) {
				t.Error("--expose changed the caller's invocation")
			}
		})
	}
}

// TestCheckArgsExposures: a bind of content the compiler did not write is
// accepted only read-only, below an expose root, outside hidden paths
// below that root; a hidden path itself cannot be exposed.
func TestCheckArgsExposures(t *testing.T) {
	base := func() *invocation.Invocation {
		inv := &invocation.Invocation{Profile: "workspace", Bwrap: invocation.Bwrap{Args: append(slices.Clone(baseArgs),
			"--tmpfs", "/h", "--tmpfs", "/h/spill/private", "--ro-bind-data", "3", "/h/spill/key", "--remount-ro", "/h", "--seccomp", "4")},
			FDs:    []invocation.FD{{Num: 3, Kind: invocation.FDEmpty}, {Num: 4, Kind: invocation.FDSeccomp}},
			Hidden: []string{"/h", "/h/spill/key", "/h/spill/private"}, Expose: &invocation.Expose{Roots: []string{"/h/spill"}}}
		return inv
	}
	if err := CheckArgs(base()); err != nil {
		t.Fatalf("base: %v", err)
	}
	ok := append(slices.Clone(base().Bwrap.Args), "--ro-bind-fd", "9", "/h/spill/a", "--ro-bind-data", "10", "/h/spill/b")
	inv := base()
	inv.Bwrap.Args = ok
	if err := CheckArgs(inv); err != nil {
		t.Errorf("exposures below the root: %v", err)
	}
	for _, c := range []struct {
		name string
		add  []string
		edit func(*invocation.Invocation)
		want string
	}{
		{"no roots", []string{"--ro-bind-fd", "9", "/h/spill/a"}, func(inv *invocation.Invocation) { inv.Expose = nil }, "below no expose root"},
		{"outside the root", []string{"--ro-bind-fd", "9", "/h/other"}, nil, "below no expose root"},
		{"the root itself", []string{"--ro-bind-fd", "9", "/h/spill"}, nil, "below no expose root"},
		{"a hidden file", []string{"--ro-bind-fd", "9", "/h/spill/key"}, nil, "hidden path /h/spill/key is not masked"},
		{"inside a hidden dir below the root", []string{"--ro-bind-fd", "9", "/h/spill/private/x"}, nil, "inside hidden path /h/spill/private"},
		{"content over a hidden file", []string{"--ro-bind-data", "9", "/h/spill/key"}, nil, "hidden path /h/spill/key is not masked"},
		{"writable fd bind", []string{"--bind-fd", "9", "/h/spill/a"}, nil, "--bind-fd"},
		{"writable copy", []string{"--bind-data", "9", "/h/spill/a"}, nil, "writable copy"},
	} {
		inv := base()
		inv.Bwrap.Args = append(inv.Bwrap.Args, c.add...)
		if c.edit != nil {
			c.edit(inv)
		}
		if err := CheckArgs(inv); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}

// TestInsertExpose: the bind goes after every mount at or above its path
// and before the read-only remount of the tmpfs that hides it.
func TestInsertExpose(t *testing.T) {
	args := []string{"--ro-bind", "/", "/", "--tmpfs", "/h", "--ro-bind", "/h/x", "/h/x", "--remount-ro", "/h", "--tmpfs", "/tmp", "--remount-ro", "/tmp"}
	got := insertExpose(args, []string{"--ro-bind-fd", "9", "/h/s/a"})
	want := []string{"--ro-bind", "/", "/", "--tmpfs", "/h", "--ro-bind", "/h/x", "/h/x", "--ro-bind-fd", "9", "/h/s/a", "--remount-ro", "/h", "--tmpfs", "/tmp", "--remount-ro", "/tmp"}
	if !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	got = insertExpose([]string{"--ro-bind", "/", "/", "--info-fd", "3"}, []string{"--ro-bind-fd", "9", "/a"})
	if !slices.Equal(got, []string{"--ro-bind", "/", "/", "--info-fd", "3", "--ro-bind-fd", "9", "/a"}) {
		t.Errorf("no remount: %q", got)
	}
}
