package sandboxtest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime/hostprobe"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// testInvocationTrust (issue 11 §5): bwrun refuses, before anything
// runs, an invocation edited by hand into something that is not a
// sandbox, or one a sandbox could rewrite; the untampered invocation runs.
// Each command would write ran-N into the working directory (writable
// from the sandbox and on the host alike): its absence proves nothing ran,
// in or out of a sandbox.
func testInvocationTrust(t *testing.T, f *fixture) {
	inv, _ := f.compile("profile: workspace\ncwd: {proj}\n", call{})
	data := f.hostRead(inv)
	orig := func() *invocation.Invocation {
		var v invocation.Invocation
		if err := json.Unmarshal([]byte(data), &v); err != nil {
			t.Fatal(err)
		}
		return &v
	}
	save := func(name string, v *invocation.Invocation) string {
		// An editor who knows the format keeps the explanation's
		// counts consistent (bwrun refuses rows that do not cover the
		// arguments); the checks under test are the ones after that.
		v.Explain = nil
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(f.base, name)
		f.write(p, string(b))
		os.Chmod(p, 0o600)
		return p
	}
	n := 0
	mustRun := func(what, p string) {
		t.Helper()
		n++
		ran := fmt.Sprintf("{proj}/ran-%d", n)
		if r := f.bwrun(p, "echo ran > "+ran, call{}); r.code != 0 {
			t.Fatalf("%s: exit %d, want 0: %v", what, r.code, r)
		}
		f.wantHostFile(f.expand(ran), "ran\n")
	}
	refused := func(what, p, want string) {
		t.Helper()
		n++
		ran := fmt.Sprintf("{proj}/ran-%d", n)
		r := f.bwrun(p, "echo ran > "+ran, call{})
		if r.code != 125 || !strings.Contains(r.stderr, want) {
			t.Errorf("%s: exit %d, want 125 and %q: %v", what, r.code, want, r)
		}
		f.wantHostAbsent(f.expand(ran))
	}

	// Control: the invocation as compiled runs, owned by the identity.
	mustRun("untampered", inv)

	// bwrap.path a wrapper script that would run on the host.
	wrapper := f.expand("{base}/bwrap-wrapper.sh")
	f.write(wrapper, f.expand("#!/bin/sh\necho wrapped > {base}/wrapper-ran\nexec \"$@\"\n"))
	os.Chmod(wrapper, 0o755)
	v := orig()
	v.Bwrap.Path = wrapper
	refused("wrapper script, bwrap's identity", save("t-wrapper.json", v), "is not an ELF executable")
	if id, err := hostprobe.StatIdentity(wrapper); err == nil {
		v.Bwrap.Identity = id
	}
	refused("wrapper script, its own identity", save("t-wrapper-id.json", v), "is not an ELF executable")
	f.wantHostAbsent(f.expand("{base}/wrapper-ran"))

	// /usr/bin/env with --chdir: would run the command on the host.
	v = orig()
	v.Bwrap.Path, v.Bwrap.Args, v.FDs, v.Rlimits = "/usr/bin/env", []string{"--chdir", f.proj}, nil, invocation.Rlimits{}
	if id, err := hostprobe.StatIdentity("/usr/bin/env"); err == nil {
		v.Bwrap.Identity = id
	}
	refused("/usr/bin/env --chdir", save("t-env.json", v), "do not describe a sandbox")
	v = orig()
	v.Bwrap.Path = "/usr/bin/env"
	refused("/usr/bin/env, bwrap's identity", save("t-env-id.json", v), "not the bwrap binary the invocation was compiled for")

	// A bwrap of the identity's own, not the one compiled for: refused;
	// with its identity recorded (a recompile) it runs.
	own := f.expand("{base}/own-bwrap")
	f.write(own, f.hostRead(bwrapPath))
	os.Chmod(own, 0o755)
	v = orig()
	v.Bwrap.Path = own
	refused("a copy of bwrap", save("t-copy.json", v), "not the bwrap binary the invocation was compiled for")
	if id, err := hostprobe.StatIdentity(own); err == nil {
		v.Bwrap.Identity = id
	}
	mustRun("a copy of bwrap with its identity", save("t-copy-id.json", v))

	// An extra writable bind, a missing --unshare-all.
	v = orig()
	mnt := filepath.Join(f.base, "mnt")
	v.Bwrap.Args = append(v.Bwrap.Args, "--bind", mnt, mnt)
	refused("extra bind", save("t-bind.json", v), "is not in the writable set")
	v = orig()
	i := slices.Index(v.Bwrap.Args, "--unshare-all")
	v.Bwrap.Args = slices.Delete(v.Bwrap.Args, i, i+1)
	refused("no --unshare-all", save("t-unshare.json", v), "namespace is shared with the host")

	// The invocation inside the working directory: a command can rewrite
	// it (shown by one), so bwrun refuses to run it.
	inProj := save("home/proj/inv.json", orig())
	n++
	if r := f.bwrun(inv, "echo '{}' > {proj}/inv.json", call{}); r.code != 0 || strings.TrimSpace(f.hostRead(inProj)) != "{}" {
		t.Fatalf("control: the sandbox could not rewrite %s: %v", inProj, r)
	}
	inProj = save("home/proj/inv.json", orig())
	refused("invocation in the working directory", inProj, "lies inside the sandbox's writable set")

	// Group-writable.
	gw := save("t-gw.json", orig())
	os.Chmod(gw, 0o660)
	refused("group-writable invocation", gw, "is writable by group or others")

	if os.Getuid() == 0 {
		// Root-owned works for every caller; another user's is refused.
		ro := save("t-root.json", orig())
		os.Chown(ro, 0, 0)
		os.Chmod(ro, 0o644)
		mustRun("root-owned", ro)
		other := save("t-other.json", orig())
		os.Chown(other, 65534, 65534)
		os.Chmod(other, 0o644)
		if f.id.uid != 65534 {
			refused("another user's invocation", other, "neither the caller")
		}
	}
}
