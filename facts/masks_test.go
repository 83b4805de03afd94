package facts

import (
	"fmt"
	"slices"
	"testing"
)

func dirPath(p string) Path { return Path{Path: p, Real: p, Kind: "dir"} }

// TestComputeMasks: each present path once, a symlink's names kept,
// what lies in a masked directory marked covered, the S4 masks added.
func TestComputeMasks(t *testing.T) {
	f := &Facts{
		Hidden: []Hidden{
			{Entry: "/h/.ssh", Path: "/h/.ssh", Kind: "dir", Why: ReasonHomeEntry, Source: SourceHomeEntry},
			{Entry: "/h/.aws", Path: "/h/dot/aws", Kind: "dir", Why: ReasonHomeEntry, Source: SourceHomeEntry},
			{Entry: "/h/.aws-old", Path: "/h/dot/aws", Kind: "dir", Why: ReasonHide, Source: SourceHide},
			{Entry: "/h/.ssh/id_rsa", Path: "/h/.ssh/id_rsa", Kind: "file", Why: ReasonCredential, Source: SourceCredentialVar},
			{Entry: "/h/.kube", Path: "/h/.kube", Kind: "absent", Why: ReasonHomeEntry, Source: SourceHomeEntry},
		},
		RunUser:       dirPath("/run/user/1000"),
		DockerSockets: []Path{{Path: "/run/docker.sock", Real: "/run/docker.sock", Kind: "socket"}, {Path: "/var/run/docker.sock", Real: "/run/docker.sock", Kind: "socket"}},
	}
	var got []string
	for _, m := range computeMasks(f) {
		got = append(got, fmt.Sprintf("%s %s %v covered=%q hidden=%d", m.Path, m.Source, m.Entries, m.CoveredBy, m.Hidden))
	}
	want := []string{
		"/h/.ssh home-entry [/h/.ssh] covered=\"\" hidden=0",
		"/h/.ssh/id_rsa credential-var [/h/.ssh/id_rsa] covered=\"/h/.ssh\" hidden=3",
		"/h/dot/aws home-entry [/h/.aws /h/.aws-old] covered=\"\" hidden=1",
		"/run/docker.sock docker-socket [/run/docker.sock /var/run/docker.sock] covered=\"\" hidden=-1",
		"/run/user/1000 run-user [/run/user/1000] covered=\"\" hidden=-1",
	}
	if !slices.Equal(got, want) {
		t.Errorf("masks:\n got %q\nwant %q", got, want)
	}
}

// TestComputeExceptions: the one condition — bound back only what
// exists inside a masked directory (the profile home whenever it is
// HOME and not a link into a mask; a CA bundle when any mask hides it).
func TestComputeExceptions(t *testing.T) {
	hermes := []Hidden{{Entry: "/h/.hermes", Path: "/h/.hermes", Kind: "dir", Why: ReasonHomeEntry, Source: SourceHermesHome}}
	for _, tc := range []struct {
		name string
		f    Facts
		cwdW bool
		want []string
	}{
		// Without a sandbox ID nothing is shared: neither the scratch
		// (other environments' files, sockets left there) nor the state
		// directories are bound back, whatever the working directory.
		{"no sandbox ID: the shared scratch stays masked", Facts{Hidden: hermes, Scratch: dirPath("/h/.hermes/cache/scratch")}, true, nil},
		{"no sandbox ID: other environments' state dirs stay masked", Facts{Hidden: hermes, StateDirs: []Path{dirPath("/h/.hermes/sandboxes/bwrap-a")}}, true, nil},
		{"sandbox: own dirs rw, staged ro, a linked staged root left out, shared scratch not bound", Facts{Hidden: hermes,
			Scratch: dirPath("/h/.hermes/cache/scratch"),
			Sandbox: &SandboxEnv{ID: "t1", State: dirPath("/h/.hermes/sandboxes/bwrap-t1"), Scratch: dirPath("/h/.hermes/cache/scratch/hermes-bwrap-t1")},
			Staged:  []Path{dirPath("/h/.hermes/attachments"), {Path: "/h/.hermes/cache/documents", Real: "/h/.hermes/attachments", Kind: "dir", HasLink: true}}}, true,
			[]string{"/h/.hermes/sandboxes/bwrap-t1 sandbox-state rw", "/h/.hermes/cache/scratch/hermes-bwrap-t1 sandbox-scratch rw", "/h/.hermes/attachments staged ro"}},
		{"sandbox, read-only working directory (restricted): the scratch follows it, read-only", Facts{Hidden: hermes,
			Sandbox: &SandboxEnv{ID: "t1", State: dirPath("/h/.hermes/sandboxes/bwrap-t1"), Scratch: dirPath("/h/.hermes/cache/scratch/hermes-bwrap-t1")}}, false,
			[]string{"/h/.hermes/sandboxes/bwrap-t1 sandbox-state rw", "/h/.hermes/cache/scratch/hermes-bwrap-t1 sandbox-scratch ro"}},
		{"sandbox: a state dir resolving elsewhere is not bound", Facts{Hidden: hermes,
			Sandbox: &SandboxEnv{ID: "t1", State: Path{Path: "/h/.hermes/sandboxes/bwrap-t1", Real: "/h/.hermes/sandboxes/bwrap-other", Kind: "dir", HasLink: true}}}, false, nil},
		{"profile home is HOME", Facts{Hidden: hermes, HomeMode: "profile", ProfileHome: dirPath("/h/.hermes/home")}, false,
			[]string{"/h/.hermes/home profile-home ro"}},
		{"profile home linking into a mask is refused by R8, never bound", Facts{Hidden: append(hermes, Hidden{Entry: "/h/.ssh", Path: "/h/.ssh", Kind: "dir", Source: SourceHomeEntry}),
			HomeMode: "profile", ProfileHome: Path{Path: "/h/.hermes/home", Real: "/h/.ssh", Kind: "dir", HasLink: true}}, true, nil},
		{"profile home in auto mode", Facts{Hidden: hermes, HomeMode: "auto", ProfileHome: dirPath("/h/.hermes/home")}, true, nil},
		{"CA bundle hidden by a file mask; another not hidden", Facts{
			Hidden:    []Hidden{{Entry: "/h/ca.pem", Path: "/h/ca.pem", Kind: "file", Source: SourceHide}},
			CABundles: []CABundle{{Var: "SSL_CERT_FILE", Path: Path{Path: "/h/ca.pem", Real: "/h/ca.pem", Kind: "file"}}, {Var: "SSL_CERT_DIR", Path: dirPath("/etc/ssl")}}}, true,
			[]string{"/h/ca.pem ca-bundle ro"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.f
			var got []string
			for _, x := range computeExceptions(&f, computeMasks(&f), tc.cwdW) {
				mode := "ro"
				if x.Writable {
					mode = "rw"
				}
				got = append(got, x.Path+" "+string(x.Source)+" "+mode)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
