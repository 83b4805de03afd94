package verify

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/internal/goldentest"
	"github.com/bwpolicy/bwpolicy/internal/testglob"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/sebdah/goldie/v2"
)

// loadGolden decodes a golden invocation strictly (unknown fields are
// errors) but without runtime.Validate, which refuses the one compiled
// without bwrap: its sandbox is still verifiable.
func loadGolden(t *testing.T, name string) *invocation.Invocation {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(goldentest.Dir(t), name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var inv invocation.Invocation
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&inv); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return &inv
}

// knownBugs are golden invocations the compiler gets wrong, with the
// invariants they break; remove an entry once its golden verifies. (The
// first, R11: a read-only bind of /home/u emitted after the writable
// working directory /home/u/proj covered it, is fixed.)
var knownBugs = map[string][]string{}

func TestGoldenInvocationsVerify(t *testing.T) {
	files := testglob.Files(t, filepath.Join(goldentest.Dir(t), "*.json"))
	if len(files) < 10 {
		t.Fatalf("only %d golden invocations", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			vs := Check(loadGolden(t, name))
			want, known := knownBugs[name]
			if !known {
				if len(vs) > 0 {
					t.Errorf("violations:\n%s", Summary(vs))
				}
				return
			}
			if len(vs) == 0 {
				t.Logf("known compiler bug fixed: remove %s from knownBugs", name)
			}
			for _, v := range vs {
				if !containsString(want, v.Invariant) {
					t.Errorf("unexpected violation: %s", v)
				}
			}
		})
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// edit returns a copy of inv with its arguments rewritten by f.
func edit(inv *invocation.Invocation, f func([]string) []string) *invocation.Invocation {
	cp := *inv
	cp.Bwrap.Args = f(append([]string(nil), inv.Bwrap.Args...))
	return &cp
}

// cut removes the first occurrence of seq from args.
func cut(t *testing.T, args []string, seq ...string) []string {
	t.Helper()
	for i := 0; i+len(seq) <= len(args); i++ {
		if equal(args[i:i+len(seq)], seq) {
			return append(args[:i:i], args[i+len(seq):]...)
		}
	}
	t.Fatalf("%q not in the arguments", seq)
	return nil
}

// insertBefore inserts seq before the first occurrence of opt.
func insertBefore(t *testing.T, args []string, opt string, seq ...string) []string {
	t.Helper()
	for i, a := range args {
		if a == opt {
			out := append(append(append([]string(nil), args[:i]...), seq...), args[i:]...)
			return out
		}
	}
	t.Fatalf("%s not in the arguments", opt)
	return nil
}

func replace(t *testing.T, args []string, old []string, new ...string) []string {
	t.Helper()
	for i := 0; i+len(old) <= len(args); i++ {
		if equal(args[i:i+len(old)], old) {
			return append(append(append([]string(nil), args[:i]...), new...), args[i+len(old):]...)
		}
	}
	t.Fatalf("%q not in the arguments", old)
	return nil
}

// TestBrokenInvocations: one hand-made mistake per invariant, each caught
// with the invariant and the path named.
func TestBrokenInvocations(t *testing.T) {
	for _, tc := range []struct {
		name, golden string
		edit         func(t *testing.T, a []string) []string
		invariant    string
		path         string
	}{
		{"later bind covers the masks", "profile_workspace_denylist", func(t *testing.T, a []string) []string {
			return insertBefore(t, a, "--chdir", "--bind", "/home/u", "/home/u")
		}, InvCovered, "/home/u/.ssh"},
		{"later bind shows the hidden paths", "profile_workspace_denylist", func(t *testing.T, a []string) []string {
			return insertBefore(t, a, "--chdir", "--bind", "/home/u", "/home/u")
		}, InvHiddenMasked, "/home/u/.ssh"},
		{"later bind is not in the writable set", "profile_workspace_denylist", func(t *testing.T, a []string) []string {
			return insertBefore(t, a, "--chdir", "--bind", "/home/u", "/home/u")
		}, InvWritableSet, "/home/u"},
		{"mask dropped", "profile_workspace_denylist", func(t *testing.T, a []string) []string {
			return cut(t, cut(t, a, "--size", "16384", "--tmpfs", "/home/u/.ssh"), "--remount-ro", "/home/u/.ssh")
		}, InvHiddenMasked, "/home/u/.ssh"},
		{"file mask dropped", "profile_workspace_denylist", func(t *testing.T, a []string) []string {
			return cut(t, a, "--ro-bind-data", "3", "/home/u/.env")
		}, InvHiddenMasked, "/home/u/.env"},
		{"mask of a symlinked entry dropped", "symlinked_hidden_entry", func(t *testing.T, a []string) []string {
			return cut(t, cut(t, a, "--size", "16384", "--tmpfs", "/home/u/dotfiles/ssh"), "--remount-ro", "/home/u/dotfiles/ssh")
		}, InvHiddenMasked, "/home/u/dotfiles/ssh"},
		{"home bound elsewhere after the masks", "profile_workspace_denylist", func(t *testing.T, a []string) []string {
			return insertBefore(t, a, "--chdir", "--ro-bind", "/home/u", "/mnt/home")
		}, InvHiddenMasked, "/mnt/home/.ssh"},
		{"hidden directory bound back by a user bind", "ca_bundle_in_hidden", func(t *testing.T, a []string) []string {
			return insertBefore(t, a, "--chdir", "--ro-bind", "/home/u/.hermes/cache", "/home/u/.hermes/cache")
		}, InvHiddenMasked, "/home/u/.hermes/cache"},
		{"exception bound elsewhere", "ca_bundle_in_hidden", func(t *testing.T, a []string) []string {
			return replace(t, a, []string{"--ro-bind", "/home/u/.hermes/venv/certifi/cacert.pem", "/home/u/.hermes/venv/certifi/cacert.pem"},
				"--ro-bind", "/home/u/.hermes/venv/certifi/cacert.pem", "/home/u/.hermes/ca.pem")
		}, InvHiddenMasked, "/home/u/.hermes/ca.pem"},
		{"share-net under workspace", "profile_workspace_denylist", func(t *testing.T, a []string) []string {
			return insertBefore(t, a, "--unshare-user", "--share-net")
		}, InvNamespaces, "--share-net"},
		{"share-net before unshare-all is overridden", "profile_network_denylist", func(t *testing.T, a []string) []string {
			return replace(t, a, []string{"--unshare-all", "--share-net"}, "--share-net", "--unshare-all")
		}, InvNamespaces, "--share-net"},
		{"no new session", "profile_network_denylist", func(t *testing.T, a []string) []string {
			return cut(t, a, "--new-session")
		}, InvNamespaces, "--new-session"},
		{"no unshare-all", "profile_workspace_denylist", func(t *testing.T, a []string) []string {
			return replace(t, a, []string{"--unshare-all"}, "--unshare-net", "--unshare-pid")
		}, InvNamespaces, "--unshare-all"},
		{"no info-fd (S11)", "profile_network_denylist", func(t *testing.T, a []string) []string {
			return cut(t, a, "--info-fd", "7", "--block-fd", "8")
		}, InvNamespaces, "--info-fd"},
		{"no seccomp", "profile_network_denylist", func(t *testing.T, a []string) []string {
			return cut(t, a, "--seccomp", "10")
		}, InvSeccomp, "--seccomp"},
		{"seccomp on the wrong fd", "profile_network_denylist", func(t *testing.T, a []string) []string {
			return replace(t, a, []string{"--seccomp", "10"}, "--seccomp", "9")
		}, InvSeccomp, "--seccomp"},
		{"read-write user bind not in the writable set", "hermes_config", func(t *testing.T, a []string) []string {
			return replace(t, a, []string{"--ro-bind", "/srv/models"}, "--bind", "/srv/models")
		}, InvWritableSet, "/srv/models"},
		{"working directory read-only", "profile_network_denylist", func(t *testing.T, a []string) []string {
			return replace(t, a, []string{"--bind", "/home/u/proj"}, "--ro-bind", "/home/u/proj")
		}, InvWritableSet, "/home/u/proj"},
		{"writable root", "profile_network_denylist", func(t *testing.T, a []string) []string {
			return replace(t, a, []string{"--ro-bind", "/", "/"}, "--bind", "/", "/")
		}, InvRootRO, "/"},
		{"no proc", "profile_network_denylist", func(t *testing.T, a []string) []string {
			return cut(t, a, "--proc", "/proc")
		}, InvProcDevTmp, "/proc"},
		{"host tmp", "profile_network_denylist", func(t *testing.T, a []string) []string {
			return replace(t, a, []string{"--size", "268435456", "--tmpfs", "/tmp"}, "--ro-bind", "/tmp", "/tmp")
		}, InvProcDevTmp, "/tmp"},
		{"/dev writable", "profile_network_denylist", func(t *testing.T, a []string) []string {
			return cut(t, a, "--remount-ro", "/dev")
		}, InvProcDevTmp, "/dev"},
		{"no /dev/shm tmpfs", "profile_network_denylist", func(t *testing.T, a []string) []string {
			return cut(t, a, "--size", "268435456", "--tmpfs", "/dev/shm")
		}, InvProcDevTmp, "/dev/shm"},
		{"pid 1 memory reachable", "profile_network_denylist", func(t *testing.T, a []string) []string {
			return cut(t, a, "--ro-bind", "/dev/null", "/proc/1/mem")
		}, InvPid1Memory, "/proc/1/mem"},
		{"pid 1 task memory reachable", "profile_network_denylist", func(t *testing.T, a []string) []string {
			return cut(t, a, "--ro-bind", "/dev/null", "/proc/1/task/1/mem")
		}, InvPid1Memory, "/proc/1/task/1/mem"},
		{"pid 1 memory masked before /proc", "profile_network_denylist", func(t *testing.T, a []string) []string {
			a = cut(t, a, "--proc", "/proc")
			return insertBefore(t, a, "--size", "--proc", "/proc")
		}, InvPid1Memory, "/proc/1/mem"},
		{"/tmp without a size", "profile_network_denylist", func(t *testing.T, a []string) []string {
			return replace(t, a, []string{"--size", "268435456", "--tmpfs", "/tmp"}, "--tmpfs", "/tmp")
		}, InvTmpfsBounded, "/tmp"},
		{"/dev/shm without a size", "profile_network_denylist", func(t *testing.T, a []string) []string {
			return replace(t, a, []string{"--size", "268435456", "--tmpfs", "/dev/shm"}, "--tmpfs", "/dev/shm")
		}, InvTmpfsBounded, "/dev/shm"},
		{"/tmp larger than recorded", "profile_network_denylist", func(t *testing.T, a []string) []string {
			return replace(t, a, []string{"--size", "268435456", "--tmpfs", "/tmp"}, "--size", "268435457", "--tmpfs", "/tmp")
		}, InvTmpfsBounded, "/tmp"},
		{"mask without a size", "profile_network_denylist", func(t *testing.T, a []string) []string {
			return replace(t, a, []string{"--size", "16384", "--tmpfs", "/home/u/.ssh"}, "--tmpfs", "/home/u/.ssh")
		}, InvTmpfsBounded, "/home/u/.ssh"},
		{"mask larger than tmp_bytes", "profile_network_denylist", func(t *testing.T, a []string) []string {
			return replace(t, a, []string{"--size", "16384", "--tmpfs", "/home/u/.ssh"}, "--size", "1073741824", "--tmpfs", "/home/u/.ssh")
		}, InvTmpfsBounded, "/home/u/.ssh"},
		{"--size not followed by --tmpfs", "profile_network_denylist", func(t *testing.T, a []string) []string {
			return insertBefore(t, a, "--chdir", "--size", "4096")
		}, InvReplay, "args[92]"},
		{"--size 0", "profile_network_denylist", func(t *testing.T, a []string) []string {
			return replace(t, a, []string{"--size", "268435456", "--tmpfs", "/tmp"}, "--size", "0", "--tmpfs", "/tmp")
		}, InvReplay, "args[25]"},
		{"pin dropped", "R7_cwd_home", func(t *testing.T, a []string) []string {
			return cut(t, a, "--bind", "/home/u/dotfiles/keys", "/home/u/dotfiles/keys")
		}, InvPinned, "/home/u/dotfiles/keys"},
		{"mount point created on the host", "H9_protected", func(t *testing.T, a []string) []string {
			return insertBefore(t, a, "--chdir", "--tmpfs", "/home/u/proj/.bash_login")
		}, InvMountPoint, "/home/u/proj/.bash_login"},
		{"mount point is a symlink", "H9_protected", func(t *testing.T, a []string) []string {
			return insertBefore(t, a, "--chdir", "--tmpfs", "/home/u/proj/.idea")
		}, InvMountPoint, "/home/u/proj/.idea"},
		{"protection at the host path, not where a bind elsewhere shows it", "H9_protected_moved_bind", func(t *testing.T, a []string) []string {
			return replace(t, a, []string{"--ro-bind", "/srv/repo/.git/config", "/mnt/repo/.git/config"}, "--ro-bind", "/srv/repo/.git/config", "/srv/repo/.git/config")
		}, InvProtected, "/mnt/repo/.git/config"},
		// The profile home's protected entries are H9 too (scope
		// profile-home): a check that compared a spelling of the reason
		// never looked at them.
		{"profile home's rc file left writable", "H9_profile_home", func(t *testing.T, a []string) []string {
			return cut(t, a, "--ro-bind", "/home/u/.hermes/home/.bashrc", "/home/u/.hermes/home/.bashrc")
		}, InvProtected, "/home/u/.hermes/home/.bashrc"},
		{"pin dropped in a bind elsewhere", "H9_protected_moved_bind", func(t *testing.T, a []string) []string {
			return cut(t, a, "--bind", "/srv/repo/.git", "/mnt/repo/.git")
		}, InvProtected, "/mnt/repo/.git"},
		{"undeclared fd", "profile_network_denylist", func(t *testing.T, a []string) []string {
			return replace(t, a, []string{"--json-status-fd", "9"}, "--json-status-fd", "11")
		}, InvFDs, "fd 11"},
		{"fd of the wrong kind", "profile_network_denylist", func(t *testing.T, a []string) []string {
			return replace(t, a, []string{"--ro-bind-data", "3"}, "--ro-bind-data", "7")
		}, InvFDs, "fd 7"},
		{"chdir elsewhere", "profile_network_denylist", func(t *testing.T, a []string) []string {
			return replace(t, a, []string{"--chdir", "/home/u/proj"}, "--chdir", "/")
		}, InvChdir, "/"},
		{"unknown option", "profile_network_denylist", func(t *testing.T, a []string) []string {
			return insertBefore(t, a, "--chdir", "--dev-bind", "/dev", "/dev")
		}, InvReplay, "args[92]"},
		{"expose root bound back", "S6_sandbox_id", func(t *testing.T, a []string) []string {
			return insertBefore(t, a, "--chdir", "--ro-bind", "/home/u/.hermes/cache/spillover", "/home/u/.hermes/cache/spillover")
		}, InvExposeRoots, "/home/u/.hermes/cache/spillover"},
		{"home layout tmpfs dropped", "profile_workspace", func(t *testing.T, a []string) []string {
			return cut(t, cut(t, a, "--size", "268435456", "--tmpfs", "/home/u"), "--remount-ro", "/home/u")
		}, InvHomeLayout, "/home/u"},
		{"home layout tmpfs left writable", "profile_workspace", func(t *testing.T, a []string) []string {
			return cut(t, a, "--remount-ro", "/home/u")
		}, InvHomeLayout, "/home/u"},
		{"home layout: a left-out dot entry bound back", "profile_workspace", func(t *testing.T, a []string) []string {
			return insertBefore(t, a, "--chdir", "--ro-bind", "/home/u/.kube", "/home/u/.kube")
		}, InvHomeLayout, "/home/u/.kube"},
		{"home layout: a left-out entry of a rebuilt directory recreated as a link", "profile_workspace", func(t *testing.T, a []string) []string {
			return insertBefore(t, a, "--chdir", "--symlink", "/home/u/.ssh", "/home/u/.config/gcloud")
		}, InvHomeLayout, "/home/u/.config/gcloud"},
		{"home layout covered by a later bind", "profile_workspace", func(t *testing.T, a []string) []string {
			return insertBefore(t, a, "--chdir", "--ro-bind", "/home/u", "/home/u")
		}, InvHomeLayout, "/home/u"},
		{"remount-ro of a path that is not a mount point", "profile_network_denylist", func(t *testing.T, a []string) []string {
			return insertBefore(t, a, "--chdir", "--remount-ro", "/home/u")
		}, InvReplay, "args[92]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv := edit(loadGolden(t, tc.golden), func(a []string) []string { return tc.edit(t, a) })
			vs := Check(inv)
			for _, v := range vs {
				if v.Invariant == tc.invariant && v.Path == tc.path {
					t.Logf("caught: %s", v)
					return
				}
			}
			t.Errorf("want %s at %s, got:\n%s", tc.invariant, tc.path, Summary(vs))
		})
	}
}

func TestBrokenSeccompProgram(t *testing.T) {
	inv := loadGolden(t, "profile_network_denylist")
	sc := *inv.Seccomp
	sc.Program = sc.Program[:len(sc.Program)-3]
	inv.Seccomp = &sc
	if vs := Check(inv); len(vs) != 1 || vs[0].Invariant != InvSeccomp {
		t.Errorf("want one seccomp violation, got:\n%s", Summary(vs))
	}
	inv.Seccomp = nil
	if vs := Check(inv); len(vs) != 1 || vs[0].Invariant != InvSeccomp {
		t.Errorf("want one seccomp violation, got:\n%s", Summary(vs))
	}
}

func TestDuplicateFD(t *testing.T) {
	inv := loadGolden(t, "profile_network_denylist")
	inv.FDs = append(inv.FDs, inv.FDs[0])
	vs := Check(inv)
	if len(vs) != 1 || vs[0].Invariant != InvFDs || vs[0].Path != "fd 3" {
		t.Errorf("want fds: fd 3, got:\n%s", Summary(vs))
	}
}

func TestReplayCovering(t *testing.T) {
	tab, err := Replay([]string{
		"--ro-bind", "/", "/",
		"--tmpfs", "/home/u/.ssh",
		"--bind", "/home/u", "/home/u", // covers the mask
		"--tmpfs", "/run/user/1000",
		"--remount-ro", "/run/user/1000",
		"--tmpfs", "/a/b",
		"--tmpfs", "/a/b", // same place: the later one wins
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		p        string
		dest     string
		kind     Kind
		writable bool
	}{
		{"/", "/", ROBind, false},
		{"/etc/passwd", "/", ROBind, false},
		{"/home/u/.ssh/id_rsa", "/home/u", Bind, true},
		{"/home/uu", "/", ROBind, false},
		{"/run/user/1000/bus", "/run/user/1000", Tmpfs, false},
		{"/a/b/c", "/a/b", Tmpfs, true},
	} {
		m, w := tab.Lookup(tc.p)
		if m == nil || m.Dest != tc.dest || m.Kind != tc.kind || w != tc.writable {
			t.Errorf("Lookup(%s) = %+v, %v; want %s %s writable=%v", tc.p, m, w, tc.kind, tc.dest, tc.writable)
		}
	}
	ssh := tab.Mounts[1]
	if ssh.Visible() || ssh.CoveredBy != 5 {
		t.Errorf("the mask should be covered by args[5]: %+v", ssh)
	}
	if first := tab.Mounts[4]; first.Visible() || first.CoveredBy != 14 {
		t.Errorf("the first /a/b should be covered by the second: %+v", first)
	}
}

func TestReplayErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--ro-bind", "/", "/", "--remount-ro", "/home"}, // not a mount point
		{"--ro-bind", "/"},                  // values missing
		{"--bind-try", "/a", "/a"},          // not modelled
		{"/usr/bin/true"},                   // a value without option
		{"--tmpfs", "tmp"},                  // relative
		{"--tmpfs", "/tmp/"},                // not clean
		{"--ro-bind-data", "x", "/a"},       // not an fd
		{"--ro-bind-data", "03", "/a"},      // not canonical
		{"--ro-bind", "/", "/", "--", "sh"}, // the command is not an argument
	} {
		if _, err := Replay(args); err == nil {
			t.Errorf("Replay(%q): no error", args)
		}
	}
}

func TestRemountIsNotRecursive(t *testing.T) {
	tab, err := Replay([]string{"--ro-bind", "/", "/", "--tmpfs", "/a", "--tmpfs", "/a/b", "--remount-ro", "/a"})
	if err != nil {
		t.Fatal(err)
	}
	if _, w := tab.Lookup("/a/x"); w {
		t.Error("/a should be read-only")
	}
	if _, w := tab.Lookup("/a/b/x"); !w {
		t.Error("/a/b should stay writable: --remount-ro is not recursive")
	}
}

func TestView(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir("testdata"))
	for _, name := range []string{"R7_cwd_home", "profile_network", "home_mode_profile"} {
		inv := loadGolden(t, name)
		var b bytes.Buffer
		if err := ViewInvocation(&b, inv); err != nil {
			t.Fatal(err)
		}
		g.Assert(t, name+".view", b.Bytes())
	}
}

func TestViewShowsCoveredMounts(t *testing.T) {
	inv := edit(loadGolden(t, "profile_workspace_denylist"), func(a []string) []string {
		return insertBefore(t, a, "--chdir", "--bind", "/home/u", "/home/u")
	})
	var b bytes.Buffer
	if err := ViewInvocation(&b, inv); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "--size 16384 --tmpfs /home/u/.ssh (args[66], S5)  ← covered by --bind /home/u /home/u") {
		t.Errorf("covered mask not shown:\n%s", b.String())
	}
}

// rewrite returns golden name with every occurrence of old replaced, in
// arguments, explain groups and preconditions alike.
func rewrite(t *testing.T, name, old, new string) *invocation.Invocation {
	t.Helper()
	js, err := json.Marshal(loadGolden(t, name))
	if err != nil {
		t.Fatal(err)
	}
	var inv invocation.Invocation
	if err := json.Unmarshal([]byte(strings.ReplaceAll(string(js), old, new)), &inv); err != nil {
		t.Fatal(err)
	}
	return &inv
}

// A CA bundle bound back inside the (itself bound back) scratch directory
// is still an exception inside the Hermes home's mask.
func TestNestedException(t *testing.T) {
	inv := rewrite(t, "ca_bundle_in_hidden", "/home/u/.hermes/venv/certifi/cacert.pem", "/home/u/.hermes/cache/scratch/ca.pem")
	if vs := Check(inv); len(vs) > 0 {
		t.Errorf("violations:\n%s", Summary(vs))
	}
}

// A hidden entry that resolves inside an exception must be masked there:
// the exception brings back the Hermes scratch directory, not the secret.
func TestSecretInsideException(t *testing.T) {
	inv := rewrite(t, "profile_workspace_denylist", `"/home/u/.aws"`, `"/home/u/.hermes/cache/scratch/aws"`)
	inv.Bwrap.Args = cut(t, inv.Bwrap.Args, "--size", "16384", "--tmpfs", "/home/u/.hermes/cache/scratch/aws")
	inv.Bwrap.Args = cut(t, inv.Bwrap.Args, "--remount-ro", "/home/u/.hermes/cache/scratch/aws")
	vs := Check(inv)
	if len(vs) == 0 || vs[0].Invariant != InvHiddenMasked {
		t.Errorf("want hidden-masked, got:\n%s", Summary(vs))
	}
}
