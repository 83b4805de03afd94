package runtime

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

func TestCheckCredentialEnv(t *testing.T) {
	// Not under /tmp: the sandbox's fresh /tmp makes paths there
	// unreachable anyway.
	dir := varTempDir(t, "bwpolicy-credenv-")
	sock := filepath.Join(dir, "agent.sock")
	keys := filepath.Join(dir, "keys")
	for _, p := range []string{sock, filepath.Join(dir, "hidden", "x")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(keys, 0o700); err != nil {
		t.Fatal(err)
	}
	inv := &invocation.Invocation{
		Bwrap:  invocation.Bwrap{Args: []string{"--ro-bind", "/", "/", "--tmpfs", "/tmp"}},
		Hidden: []string{filepath.Join(dir, "hidden")},
		Env:    invocation.Env{CredentialPaths: map[string][]string{"SSH_AUTH_SOCK": {sock}, "AWS_CONFIG_FILE": {"rel/config"}}},
	}
	cases := []struct {
		env   map[string]string
		stale []string // VAR=PATH mismatches
	}{
		{map[string]string{}, nil},
		{map[string]string{"SSH_AUTH_SOCK": sock}, nil},                                              // as compiled
		{map[string]string{"SSH_AUTH_SOCK": sock + "/"}, nil},                                        // cleaned
		{map[string]string{"GNUPGHOME": filepath.Join(dir, "hidden", "x")}, nil},                     // inside a hidden path
		{map[string]string{"GNUPGHOME": filepath.Join(dir, "nothing-here")}, nil},                    // does not exist
		{map[string]string{"SSH_AUTH_SOCK": "/tmp/ssh-x/agent.1", "KRB5CCNAME": "FILE:/dev/x"}, nil}, // the sandbox's own /tmp and /dev
		{map[string]string{"AWS_CONFIG_FILE": "rel/config"}, nil},                                    // relative, as compiled
		{map[string]string{"GNUPGHOME": keys}, []string{"GNUPGHOME=" + keys}},
		{map[string]string{"SSH_AUTH_SOCK": keys}, []string{"SSH_AUTH_SOCK=" + keys}},
		{map[string]string{"KUBECONFIG": sock + ":" + keys, "AWS_CONFIG_FILE": "other/rel"},
			[]string{"AWS_CONFIG_FILE=other/rel", "KUBECONFIG=" + sock, "KUBECONFIG=" + keys}},
	}
	for _, c := range cases {
		err := CheckCredentialEnv(inv, func(k string) (string, bool) { v, ok := c.env[k]; return v, ok })
		var got []string
		var stale *StaleError
		if errors.As(err, &stale) {
			for _, m := range stale.Mismatches {
				got = append(got, m.EnvVar+"="+m.EnvPath)
			}
		} else if err != nil {
			t.Fatalf("%v: %v", c.env, err)
		}
		slices.Sort(got)
		if !reflect.DeepEqual(got, c.stale) {
			t.Errorf("%v: stale %q, want %q", c.env, got, c.stale)
		}
	}

	// A bind from inside /tmp makes /tmp paths count.
	inv.Bwrap.Args = append(inv.Bwrap.Args, "--bind", "/tmp/shared", "/mnt/shared")
	err := CheckCredentialEnv(inv, func(k string) (string, bool) {
		if k == "SSH_AUTH_SOCK" {
			return sock + "-not-there-but-tmp", true
		}
		if k == "GNUPGHOME" {
			return "/tmp", true
		}
		return "", false
	})
	var stale *StaleError
	if !errors.As(err, &stale) || len(stale.Mismatches) != 1 || stale.Mismatches[0].EnvPath != "/tmp" ||
		!strings.Contains(err.Error(), "$GNUPGHOME names /tmp, which this invocation does not hide") {
		t.Errorf("with a bind from /tmp: %v", err)
	}
}

// TestCheckCredentialEnvReexposed: a path inside a hidden directory but
// also inside a directory bound back into it (the Hermes scratch) is
// reachable, so it does not count as hidden.
func TestCheckCredentialEnvReexposed(t *testing.T) {
	dir, err := os.MkdirTemp("/var/tmp", "bwpolicy-credenv-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	hermes := filepath.Join(dir, "hermes")
	scratch := filepath.Join(hermes, "cache", "scratch")
	for _, p := range []string{filepath.Join(scratch, "agent.sock"), filepath.Join(hermes, "auth.sock")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	inv := &invocation.Invocation{
		Bwrap:  invocation.Bwrap{Args: []string{"--ro-bind", "/", "/", "--tmpfs", hermes, "--bind", scratch, scratch}},
		Hidden: []string{hermes},
	}
	check := func(sock string) error {
		return CheckCredentialEnv(inv, func(k string) (string, bool) {
			if k == "SSH_AUTH_SOCK" {
				return sock, true
			}
			return "", false
		})
	}
	if err := check(filepath.Join(hermes, "auth.sock")); err != nil {
		t.Errorf("a socket in the hidden Hermes home: %v", err)
	}
	if err := check(filepath.Join(scratch, "agent.sock")); err == nil || !strings.Contains(err.Error(), "does not hide") {
		t.Errorf("a socket in the scratch directory bound back: %v, want stale", err)
	}
}

// TestCheckCredentialEnvXDG: an XDG base variable may name the directory
// the compile recorded, the default place under HOME, or nothing that
// exists; another existing directory makes the run stale (its credential
// stores were never looked at), and a relative value is ignored.
func TestCheckCredentialEnvXDG(t *testing.T) {
	home := t.TempDir()
	other, err := os.MkdirTemp("/var/tmp", "xdg") // not under /tmp, which the sandbox replaces
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(other)
	inv := &invocation.Invocation{Env: invocation.Env{CredentialPaths: map[string][]string{"XDG_CONFIG_HOME": {"/data/cfg"}}}}
	for _, c := range []struct {
		env   map[string]string
		stale string
	}{
		{map[string]string{"HOME": home}, ""},
		{map[string]string{"HOME": home, "XDG_CONFIG_HOME": "/data/cfg/"}, ""},
		{map[string]string{"HOME": home, "XDG_CONFIG_HOME": home + "/.config"}, ""},
		{map[string]string{"HOME": home, "XDG_CONFIG_HOME": other + "/nonexistent"}, ""},
		{map[string]string{"HOME": home, "XDG_DATA_HOME": "relative"}, ""},
		{map[string]string{"HOME": home, "XDG_CONFIG_HOME": other}, "XDG_CONFIG_HOME"},
		{map[string]string{"HOME": home, "XDG_DATA_HOME": other}, "XDG_DATA_HOME"},
	} {
		err := CheckCredentialEnv(inv, func(k string) (string, bool) { v, ok := c.env[k]; return v, ok })
		var se *StaleError
		switch {
		case c.stale == "" && err != nil:
			t.Errorf("%v: %v", c.env, err)
		case c.stale != "" && (!errors.As(err, &se) || se.Mismatches[0].EnvVar != c.stale):
			t.Errorf("%v: got %v, want stale naming %s", c.env, err, c.stale)
		}
	}
}
