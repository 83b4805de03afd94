package facts

import (
	"github.com/bwpolicy/bwpolicy/facts/factstest"

	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/profile"
	"github.com/bwpolicy/bwpolicy/settings"
)

// TestCredentialStoresInEveryProfile: the names of CredentialStores and
// the H7 entries of #Profile.hidden_home (schema/sandbox.cue) agree, and
// every built-in profile hides each of them.
func TestCredentialStoresInEveryProfile(t *testing.T) {
	set, ds := profile.Builtin()
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	s5 := []string{".ssh", ".aws", ".gnupg", ".gpg", ".config/gcloud", ".azure", ".docker", ".kube", ".npmrc", ".pypirc", ".netrc", ".env"}
	for _, name := range set.Names() {
		p, err := set.Resolve(name, nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		var extra []string
		for _, h := range p.HiddenNames() {
			if !slices.Contains(s5, h) {
				extra = append(extra, h)
			}
		}
		want := slices.Sorted(slices.Values(CredentialStores))
		if !reflect.DeepEqual(extra, want) {
			t.Errorf("profile %s hides beyond S5 %q, want CredentialStores %q", name, extra, want)
		}
	}
}

// TestEnvCredentials: the paths credential variables name are hidden at
// their resolved place; unreachable ones are not even looked at; the
// cwd, the home and relative paths are skipped with a reason.
func TestEnvCredentials(t *testing.T) {
	tree := factstest.Tree{
		"/home/u/proj":            {Kind: "dir"},
		"/home/u/.agent.sock":     {Kind: "socket"},
		"/home/u/keys":            {Kind: "symlink", Target: "/srv/keys"},
		"/srv/keys/gnupg":         {Kind: "dir"},
		"/home/u/.ssh/agent.sock": {Kind: "socket"},
		"/home/u/.ssh":            {Kind: "dir"},
	}
	h := &Host{FS: tree, UID: 1000, Home: "/home/u", HermesHome: "/home/u/.hermes", ProcessCwd: "/home/u/proj", Env: map[string]string{
		"SSH_AUTH_SOCK":            "/home/u/.agent.sock",
		"GNUPGHOME":                "/home/u/keys/gnupg",
		"GPG_AGENT_INFO":           "/home/u/.ssh/agent.sock:1:1", // inside ~/.ssh, hidden already
		"DBUS_SESSION_BUS_ADDRESS": "unix:path=/tmp/dbus-sock",
		"KUBECONFIG":               "/home/u/kube.yaml:rel/kube.yaml",
		"DOCKER_CONFIG":            "/home/u/",
		"CLOUDSDK_CONFIG":          "/home/u/proj",
	}}
	p := &profile.Profile{HiddenHome: map[string]bool{".ssh": true}}
	f := Gather(h, &settings.Settings{}, p)
	var got []string
	for _, x := range f.Hidden {
		if x.Source == SourceCredentialVar { // this row's paths, not every H7 row's
			got = append(got, x.Var+" "+x.Path+" "+x.Kind)
		}
	}
	want := []string{"SSH_AUTH_SOCK /home/u/.agent.sock socket", "GNUPGHOME /srv/keys/gnupg dir", "KUBECONFIG /home/u/kube.yaml absent"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("H7 hidden:\n got %q\nwant %q", got, want)
	}
	var skips []string
	for _, s := range f.EnvSkips {
		skips = append(skips, s.Var+" "+s.Path+": "+s.Reason)
	}
	wantSkips := []string{
		"CLOUDSDK_CONFIG /home/u/proj: is the working directory or above it",
		"KUBECONFIG rel/kube.yaml: is not an absolute path",
		"DOCKER_CONFIG /home/u: is the working directory or above it",
	}
	if !reflect.DeepEqual(skips, wantSkips) {
		t.Errorf("skips:\n got %q\nwant %q", skips, wantSkips)
	}
	if _, ok := f.Observed["/tmp/dbus-sock"]; ok {
		t.Error("a path under /tmp was looked at (it would become a precondition)")
	}
}

// TestXDGRelocated: with XDG_CONFIG_HOME and XDG_DATA_HOME elsewhere,
// every denied entry of ~/.config and ~/.local/share is hidden at the
// moved place too (present there, so a mask each), the rest of the moved
// directory is not, and the directories are recorded for bwrun.
func TestXDGRelocated(t *testing.T) {
	tree := factstest.Tree{"/home/u/proj": {Kind: "dir"}, "/data/cfg/git/config": {Kind: "file"}}
	hidden := map[string]bool{}
	var want []string
	for _, name := range append(slices.Clone(CredentialStores), HermesDenied...) {
		for def, moved := range map[string]string{".config/": "/data/cfg/", ".local/share/": "/data/share/"} {
			if rest, ok := strings.CutPrefix(name, def); ok && !hidden[name] {
				hidden[name] = true
				tree[moved+rest+"/x"] = Stat{Kind: "file"}
				want = append(want, moved+rest)
			}
		}
	}
	h := &Host{FS: tree, UID: 1000, Home: "/home/u", HermesHome: "/home/u/.hermes", ProcessCwd: "/home/u/proj",
		Env: map[string]string{"XDG_CONFIG_HOME": "/data/cfg", "XDG_DATA_HOME": "/data/share/", "XDG_STATE_HOME": "rel"}}
	f := Gather(h, &settings.Settings{}, &profile.Profile{HiddenHome: hidden})
	var got []string
	for _, x := range f.Hidden {
		if x.Source == SourceMovedDir {
			got = append(got, x.Path)
			if Within("/data/cfg/git/config", x.Path) {
				t.Errorf("%s hidden: not a denied entry", x.Path)
			}
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if len(want) < 25 || !slices.Equal(got, want) {
		t.Errorf("relocated:\n got %q\nwant %q", got, want)
	}
	if cp := f.CredentialPaths; !slices.Equal(cp["XDG_CONFIG_HOME"], []string{"/data/cfg"}) || !slices.Equal(cp["XDG_DATA_HOME"], []string{"/data/share"}) || cp["XDG_STATE_HOME"] != nil {
		t.Errorf("recorded: %v", cp)
	}
}

// TestHuggingFaceTokens: huggingface_hub's active token and its named
// tokens (stored_tokens), in ~/.cache/huggingface and the legacy
// ~/.huggingface, are credential stores, hidden at HF_HOME too.
func TestHuggingFaceTokens(t *testing.T) {
	for _, name := range []string{".cache/huggingface/token", ".cache/huggingface/stored_tokens", ".huggingface/token", ".huggingface/stored_tokens"} {
		if !slices.Contains(CredentialStores, name) {
			t.Errorf("%s is not a credential store", name)
		}
	}
	tree := factstest.Tree{"/home/u/proj": {Kind: "dir"}, "/data/hf/stored_tokens": {Kind: "file"}}
	h := &Host{FS: tree, UID: 1000, Home: "/home/u", HermesHome: "/home/u/.hermes", ProcessCwd: "/home/u/proj",
		Env: map[string]string{"HF_HOME": "/data/hf"}}
	hidden := map[string]bool{}
	for _, name := range CredentialStores {
		hidden[name] = true
	}
	f := Gather(h, &settings.Settings{}, &profile.Profile{HiddenHome: hidden})
	if !slices.ContainsFunc(f.Hidden, func(x Hidden) bool { return x.Path == "/data/hf/stored_tokens" && x.Kind == "file" }) {
		t.Errorf("HF_HOME's stored_tokens is not hidden: %v", f.Hidden)
	}
}
