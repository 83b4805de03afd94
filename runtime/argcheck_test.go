package runtime

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/internal/goldentest"
	"github.com/bwpolicy/bwpolicy/internal/testglob"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// goldenInvocations decodes the compiler's golden invocations (those the
// runtime accepts: not the one compiled without bwrap).
func goldenInvocations(t testing.TB) map[string]*invocation.Invocation {
	t.Helper()
	files := testglob.Files(t, filepath.Join(goldentest.Dir(t), "*.json"))
	out := map[string]*invocation.Invocation{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inv, err := invocation.Decode(data)
		if err != nil {
			continue // compiled without bwrap: Validate refuses it already
		}
		out[filepath.Base(f)] = inv
	}
	return out
}

// TestCheckArgsGolden: every invocation the compiler wrote for the
// golden cases passes the runtime's argument check.
func TestCheckArgsGolden(t *testing.T) {
	for name, inv := range goldenInvocations(t) {
		if err := CheckArgs(inv); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// dropArgs removes the option opt (and n values) at its first place.
func dropArgs(args []string, opt string, n int) []string {
	i := slices.Index(args, opt)
	if i < 0 {
		return args
	}
	return slices.Delete(slices.Clone(args), i, i+1+n)
}

// argEdits are hand edits of an invocation (the workspace profile) that
// the runtime must refuse, with a word of the message that says why.
var argEdits = []struct {
	name string
	edit func(inv *invocation.Invocation)
	want string
}{
	{"no --unshare-all", func(inv *invocation.Invocation) { inv.Bwrap.Args = dropArgs(inv.Bwrap.Args, "--unshare-all", 0) }, "the ipc namespace is shared with the host"},
	// Every namespace but pid's: the environment's watcher refuses a
	// peer in another pid namespace (runtime/watch), so a sandbox must
	// never share the host's (every profile's golden passes this check:
	// TestCheckArgsGolden).
	{"pid namespace shared", func(inv *invocation.Invocation) {
		inv.Bwrap.Args = append(dropArgs(inv.Bwrap.Args, "--unshare-all", 0), "--unshare-ipc", "--unshare-uts", "--unshare-cgroup", "--unshare-net")
	}, "the pid namespace is shared with the host"},
	{"no --unshare-user", func(inv *invocation.Invocation) { inv.Bwrap.Args = dropArgs(inv.Bwrap.Args, "--unshare-user", 0) }, "no --unshare-user"},
	{"--share-net under workspace", func(inv *invocation.Invocation) { inv.Bwrap.Args = append(inv.Bwrap.Args, "--share-net") }, "the host network is shared"},
	{"no --die-with-parent", func(inv *invocation.Invocation) { inv.Bwrap.Args = dropArgs(inv.Bwrap.Args, "--die-with-parent", 0) }, "no --die-with-parent"},
	{"no --new-session", func(inv *invocation.Invocation) { inv.Bwrap.Args = dropArgs(inv.Bwrap.Args, "--new-session", 0) }, "no --new-session"},
	{"writable root", func(inv *invocation.Invocation) {
		i := slices.Index(inv.Bwrap.Args, "--ro-bind")
		inv.Bwrap.Args = slices.Clone(inv.Bwrap.Args)
		inv.Bwrap.Args[i] = "--bind"
	}, "the root is not the host root read-only"},
	{"tmpfs over the root", func(inv *invocation.Invocation) { inv.Bwrap.Args = append(inv.Bwrap.Args, "--tmpfs", "/") }, "the root is not the host root read-only"},
	{"no root", func(inv *invocation.Invocation) { inv.Bwrap.Args = dropArgs(inv.Bwrap.Args, "--ro-bind", 2) }, "the root is not the host root read-only"},
	{"host /proc", func(inv *invocation.Invocation) {
		inv.Bwrap.Args = append(inv.Bwrap.Args, "--ro-bind", "/proc", "/proc")
	}, "/proc is not a fresh proc"},
	{"no /dev", func(inv *invocation.Invocation) { inv.Bwrap.Args = dropArgs(inv.Bwrap.Args, "--dev", 1) }, "/dev is not a fresh dev"},
	{"host /tmp", func(inv *invocation.Invocation) { inv.Bwrap.Args = append(inv.Bwrap.Args, "--ro-bind", "/tmp", "/tmp") }, "/tmp is not a fresh tmpfs"},
	{"extra bind", func(inv *invocation.Invocation) {
		inv.Bwrap.Args = append(inv.Bwrap.Args, "--bind", "/tmp/x", "/tmp/x")
	}, "--bind /tmp/x /tmp/x makes host /tmp/x writable"},
	{"extra dev-bind", func(inv *invocation.Invocation) {
		inv.Bwrap.Args = append(inv.Bwrap.Args, "--dev-bind", "/home/u", "/mnt")
	}, "--dev-bind /home/u /mnt makes host /home/u writable"},
	{"fake pin", func(inv *invocation.Invocation) {
		inv.Bwrap.Args = append(inv.Bwrap.Args, "--bind", "/home/u/.ssh", "/home/u/proj/ssh")
	}, "makes host /home/u/.ssh writable"},
	{"overlay", func(inv *invocation.Invocation) {
		inv.Bwrap.Args = append(inv.Bwrap.Args, "--overlay-src", "/usr", "--overlay", "/home/u/up", "/home/u/work", "/usr")
	}, "--overlay writes to a host directory"},
	{"mask covered", func(inv *invocation.Invocation) {
		inv.Bwrap.Args = append(inv.Bwrap.Args, "--ro-bind", "/home/u", "/home/u")
	}, "hidden path /home/u/.ssh is not masked"},
	{"mask dropped", func(inv *invocation.Invocation) {
		i := slices.Index(inv.Bwrap.Args, "/home/u/.ssh")
		inv.Bwrap.Args = slices.Delete(slices.Clone(inv.Bwrap.Args), i-1, i+1)
	}, "hidden path /home/u/.ssh is not masked"},
	{"mask by another spelling", func(inv *invocation.Invocation) {
		i := slices.Index(inv.Bwrap.Args, "/home/u/.ssh")
		inv.Bwrap.Args = slices.Clone(inv.Bwrap.Args)
		inv.Bwrap.Args[i] = "/home/u/./.ssh"
	}, "is not an absolute, clean path"},
	{"no seccomp", func(inv *invocation.Invocation) {
		i := slices.Index(inv.Bwrap.Args, "--seccomp")
		inv.Bwrap.Args = slices.Delete(slices.Clone(inv.Bwrap.Args), i, i+2)
	}, "no --seccomp"},
	{"pid 1 memory unmasked", func(inv *invocation.Invocation) {
		inv.Bwrap.Args = removeSeq(inv.Bwrap.Args, "--ro-bind", "/dev/null", "/proc/1/mem")
	}, "the memory of the sandbox's pid 1 is reachable at /proc/1/mem"},
	{"pid 1 task memory unmasked", func(inv *invocation.Invocation) {
		inv.Bwrap.Args = removeSeq(inv.Bwrap.Args, "--ro-bind", "/dev/null", "/proc/1/task/1/mem")
	}, "reachable at /proc/1/task/1/mem"},
	{"pid 1 memory under a later /proc", func(inv *invocation.Invocation) { inv.Bwrap.Args = append(inv.Bwrap.Args, "--proc", "/proc") }, "reachable at /proc/1/mem"},
	{"pid 1 memory uncovered by a later bind of /proc/1", func(inv *invocation.Invocation) {
		inv.Bwrap.Args = append(inv.Bwrap.Args, "--ro-bind", "/proc/1", "/proc/1")
	}, "reachable at /proc/1/task/1/mem"},
	{"pid 1 memory masked by a writable file", func(inv *invocation.Invocation) {
		inv.Bwrap.Args = replaceSeq(inv.Bwrap.Args, []string{"--ro-bind", "/dev/null", "/proc/1/mem"}, []string{"--bind-data", "9", "/proc/1/mem"})
	}, "reachable at /proc/1/mem"},
	{"pid 1 memory bound from elsewhere", func(inv *invocation.Invocation) {
		inv.Bwrap.Args = replaceSeq(inv.Bwrap.Args, []string{"--ro-bind", "/dev/null", "/proc/1/mem"}, []string{"--ro-bind", "/proc/self/mem", "/proc/1/mem"})
	}, "reachable at /proc/1/mem"},
	{"capabilities", func(inv *invocation.Invocation) { inv.Bwrap.Args = append(inv.Bwrap.Args, "--cap-add", "ALL") }, "--cap-add"},
	{"relative source", func(inv *invocation.Invocation) { inv.Bwrap.Args = append(inv.Bwrap.Args, "--ro-bind", "etc", "/etc") }, "source \"etc\" is not an absolute, clean path"},
}

// removeSeq removes the first occurrence of seq from args.
func removeSeq(args []string, seq ...string) []string {
	return replaceSeq(args, seq, nil)
}

// replaceSeq replaces the first occurrence of seq in args with with.
func replaceSeq(args, seq, with []string) []string {
	for i := 0; i+len(seq) <= len(args); i++ {
		if slices.Equal(args[i:i+len(seq)], seq) {
			return slices.Concat(args[:i], with, args[i+len(seq):])
		}
	}
	panic(fmt.Sprintf("%q not in the arguments", seq))
}

func TestCheckArgsRefusesHandEdits(t *testing.T) {
	good := goldenInvocations(t)["profile_workspace_denylist.json"]
	if good == nil {
		t.Fatal("golden profile_workspace_denylist.json missing")
	}
	for _, c := range argEdits {
		t.Run(c.name, func(t *testing.T) {
			inv := *good
			inv.Bwrap.Args = slices.Clone(good.Bwrap.Args)
			c.edit(&inv)
			err := CheckArgs(&inv)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "recompile") {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}

// TestCheckArgsNetworkProfile: only profile network may share the host
// network, and it may also keep it unshared.
func TestCheckArgsNetworkProfile(t *testing.T) {
	inv := *goldenInvocations(t)["profile_network_denylist.json"]
	if err := CheckArgs(&inv); err != nil {
		t.Fatal(err)
	}
	inv.Profile = "workspace"
	if err := CheckArgs(&inv); err == nil {
		t.Fatal("--share-net accepted under profile workspace")
	}
}

// BenchmarkCheckArgs: the argument check of a typical invocation.
func BenchmarkCheckArgs(b *testing.B) {
	inv := goldenInvocations(b)["R7_cwd_home.json"]
	for i := 0; i < b.N; i++ {
		if err := CheckArgs(inv); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCheckArgsHomeLayout: the home layout's tmpfs (H10) cannot be taken
// away or covered by a hand edit; the allowlist golden passes as is.
func TestCheckArgsHomeLayout(t *testing.T) {
	good := goldenInvocations(t)["profile_workspace.json"]
	if good == nil || good.Home == nil {
		t.Fatal("golden profile_workspace.json missing or without a home layout")
	}
	if err := CheckArgs(good); err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func([]string) []string{
		"tmpfs dropped": func(a []string) []string {
			i := slices.Index(a, "/home/u")
			if i < 3 || a[i-1] != "--tmpfs" {
				t.Fatalf("no --tmpfs /home/u in %q", a)
			}
			return slices.Delete(a, i-3, i+1) // --size N --tmpfs /home/u
		},
		"covered by a later bind": func(a []string) []string {
			i := slices.Index(a, "--chdir")
			return slices.Insert(a, i, "--ro-bind", "/home/u", "/home/u")
		},
	} {
		t.Run(name, func(t *testing.T) {
			inv := *good
			inv.Bwrap.Args = edit(slices.Clone(good.Bwrap.Args))
			if err := CheckArgs(&inv); err == nil || !strings.Contains(err.Error(), "home layout directory /home/u is not a tmpfs") {
				t.Fatalf("got %v", err)
			}
		})
	}
}
