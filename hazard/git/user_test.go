package git

import (
	"os"
	"path/filepath"
	"testing"
)

func TestUserPath(t *testing.T) {
	lookup := func(n string) (string, bool) {
		if n == "bob" {
			return "/srv/bob", true
		}
		return "", false
	}
	for _, c := range []struct {
		v, want string
		ok      bool
	}{
		{"~", "/home/u", true}, // git: HOME, also with nothing after it
		{"~/", "/home/u/", true},
		{"~/h", "/home/u/h", true},
		{"~bob", "/srv/bob", true},
		{"~bob/h/x", "/srv/bob/h/x", true},
		{"~nobody/h", "", false}, // git dies: "failed to expand user dir"
		{"h/~bob", "h/~bob", true},
		{"/abs", "/abs", true},
	} {
		got, ok := UserPath(c.v, "/home/u", lookup)
		if got != c.want || ok != c.ok {
			t.Errorf("UserPath(%q) = %q, %v; want %q, %v", c.v, got, ok, c.want, c.ok)
		}
	}
	if _, ok := UserPath("~/h", "", lookup); ok {
		t.Error("~/ with no home expanded")
	}
}

func TestPasswdHome(t *testing.T) {
	p := filepath.Join(t.TempDir(), "passwd")
	os.WriteFile(p, []byte("root:x:0:0:root:/root:/bin/bash\nbob:x:1000:1000:Bob,,,:/srv/bob:/bin/sh\n#x\n"), 0o644)
	old := PasswdFile
	PasswdFile = p
	t.Cleanup(func() { PasswdFile = old })
	if h, ok := PasswdHome("bob"); !ok || h != "/srv/bob" {
		t.Errorf("bob: %q %v", h, ok)
	}
	if _, ok := PasswdHome("bo"); ok {
		t.Error("a prefix of a name matched")
	}
}
