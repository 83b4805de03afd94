package compiler

import (
	"github.com/bwpolicy/bwpolicy/facts/factstest"

	"context"
	"fmt"
	"path"
	"strconv"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/runtime/hostprobe"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/verify"
)

// FuzzVerify uses the independent verifier (package verify, H6) as the
// oracle of the compiler: over random settings and synthetic host trees,
// the compiled invocation always verifies, or compilation is refused.
//
// The fuzz input only chooses: each byte picks one option from a list of
// candidates (hidden entries present, absent, symlinked into the working
// directory or the Hermes home; working directories at home, inside
// hidden paths, missing, symlinked; binds in and over all of them), so
// the fuzzer explores combinations rather than YAML syntax. A failure
// prints the case as a txtar archive ready for testdata/cases.
func FuzzVerify(f *testing.F) {
	for _, seed := range [][]byte{
		{},
		{0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2},
		{3, 1, 0, 1, 4, 2, 1, 1, 1, 1, 3, 1, 2, 1, 1, 2, 1, 1, 3, 2, 5, 1, 1, 2, 3, 0, 1},
		{1, 0, 1, 0, 5, 3, 2, 1, 1, 1, 1, 4, 2, 1, 3, 3, 1, 2, 1, 2, 1, 0, 2, 7, 4, 1},
		[]byte("the quick brown fox jumps over the lazy dog"),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc := newScenario(data)
		tc := sc.testCase(t)
		res := Compile(context.Background(), tc.req)
		for _, d := range res.Diags {
			// The self-check stage withholds what does not verify: an
			// emitter bug, which this fuzzer is here to find.
			if d.Rule == "H6" {
				t.Fatalf("the compiled invocation does not verify: %s\ncase (testdata/cases/NAME.txtar):\n%s", d.Summary, sc.txtar())
			}
		}
		if res.Invocation == nil {
			if !res.Diags.HasErrors() {
				t.Fatalf("no invocation and no error\n%s", sc.txtar())
			}
			return
		}
		if vs := verify.Check(res.Invocation); len(vs) > 0 {
			t.Fatalf("the compiled invocation does not verify:\n%s\ncase (testdata/cases/NAME.txtar):\n%s\nargs: %s",
				verify.Summary(vs), sc.txtar(), strings.Join(res.Invocation.Bwrap.Args, " "))
		}
	})
}

// scenario is one fuzz case: host lines, tree lines, settings and flags
// in the txtar format of testdata/cases.
type scenario struct {
	data     []byte
	pos      int
	host     []string
	tree     []string
	settings []string
	flags    []string
}

// pick returns a choice in [0, n): the next input byte, 0 once exhausted.
func (s *scenario) pick(n int) int {
	if s.pos >= len(s.data) {
		return 0
	}
	b := s.data[s.pos]
	s.pos++
	return int(b) % n
}

func (s *scenario) choose(options ...string) string { return options[s.pick(len(options))] }

func (s *scenario) addTree(lines string) {
	for _, l := range strings.Split(lines, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			s.tree = append(s.tree, l)
		}
	}
}

func newScenario(data []byte) *scenario {
	s := &scenario{data: data}
	const home = "/home/u"
	hh := s.choose("", home+"/.hermes/profiles/work", "/srv/hermes", home+"/proj/.hermes", home+"/.config/hermes")
	if hh != "" {
		s.host = append(s.host, "hermes_home "+hh)
	} else {
		hh = home + "/.hermes"
	}
	s.host = append(s.host, "cwd "+s.choose(home+"/proj", home, home+"/.hermes/hermes-agent", home+"/proj/sub", "/srv/data", home+"/link"))
	s.host = append(s.host, s.choose("kernel 6.8.0", "kernel 5.10.0"))
	switch s.pick(6) {
	case 1:
		s.host = append(s.host, "bwrap /usr/bin/bwrap 0.5.0")
	case 2:
		s.host = append(s.host, "no-bwrap")
	}
	if ca := s.choose("", hh+"/venv/cacert.pem", home+"/.ssh/ca.pem", "/etc/ssl/certs/ca.pem", home+"/proj/ca.pem", home+"/.aws/ca.pem"); ca != "" {
		s.host = append(s.host, "env "+s.choose("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS")+"="+ca)
	}

	// The tree.
	s.addTree(s.choose(
		"dir /home/u/proj",
		"dir /home/u/proj/sub\nfile /home/u/proj/README",
		"",
		"link /home/u/proj -> /srv/data\ndir /srv/data",
	))
	s.addTree(s.choose(
		"",
		"dir /home/u/.ssh\nfile /home/u/.ssh/id_rsa",
		"link /home/u/.ssh -> /home/u/dotfiles/ssh\ndir /home/u/dotfiles/ssh",
		"link /home/u/.ssh -> dotfiles/ssh\ndir /home/u/dotfiles/ssh",
		"link /home/u/.ssh -> /home/u/proj/keys\ndir /home/u/proj/keys",
		"link /home/u/.ssh -> "+hh+"/cache/scratch/keys\ndir "+hh+"/cache/scratch/keys",
		"link /home/u/.ssh -> /nonexistent",
		"file /home/u/.ssh",
		"link /home/u/.ssh -> /home/u/proj/sub/.ssh\ndir /home/u/proj/sub/.ssh",
	))
	s.addTree(s.choose( // the profile home (home_mode: profile) and its protected entries
		"",
		"dir "+hh+"/home",
		"dir "+hh+"/home\nfile "+hh+"/home/.bashrc\ndir "+hh+"/home/.config/autostart\ndir "+hh+"/home/.local/bin",
		"dir "+hh+"/home\nlink "+hh+"/home/.profile -> /home/u/.ssh\ndir "+hh+"/home/.git/hooks\nfile "+hh+"/home/.git/config",
	))
	s.addTree(s.choose(
		"",
		"dir /home/u/.aws",
		"link /home/u/.aws -> /home/u/dotfiles/aws\ndir /home/u/dotfiles/aws",
		"link /home/u/.aws -> /home/u/proj/sub/aws\ndir /home/u/proj/sub/aws",
		"link /home/u/.aws -> /home/u/.ssh",
	))
	s.addTree(s.choose(
		"",
		"dir /home/u/.config/gcloud",
		"link /home/u/.config -> /home/u/dotfiles/config\ndir /home/u/dotfiles/config/gcloud",
		"dir /home/u/.config/other",
		"link /home/u/.config/gcloud -> /srv/gcloud\ndir /srv/gcloud",
	))
	s.addTree(s.choose("", "file /home/u/.npmrc", "file /home/u/.npmrc\nfile /home/u/.netrc\nfile /home/u/.env", "dir /home/u/.env\nfile /home/u/.pypirc"))
	s.addTree(s.choose("", "dir /home/u/.gnupg", "dir /home/u/.gnupg\ndir /home/u/.kube\ndir /home/u/.docker", "socket /home/u/.gnupg"))
	s.addTree(s.choose(
		"",
		"dir "+hh+"/cache/scratch",
		"dir "+hh+"/cache/scratch\ndir "+hh+"/sandboxes/bwrap-abc\ndir "+hh+"/sandboxes/other",
		"dir "+hh+"/cache/scratch\ndir "+hh+"/home",
		"link "+hh+"/home -> /home/u/proj/phome\ndir /home/u/proj/phome\ndir "+hh+"/cache/scratch",
		"file "+hh+"/venv/cacert.pem\ndir "+hh+"/cache/scratch",
		"link "+hh+"/home -> /home/u/.ssh\ndir "+hh+"/cache/scratch",
		"link "+hh+" -> /srv/hh\ndir /srv/hh/cache/scratch\ndir /srv/hh/home",
		"link "+hh+"/cache/scratch -> /tmp/scratch",
		"dir "+hh+"/home\nlink "+hh+"/sandboxes/bwrap-x -> /srv/data",
	))
	if s.pick(2) == 1 {
		s.addTree("dir /home/u/.hermes/hermes-agent")
	}
	s.addTree(s.choose(
		"",
		"dir /run/user/1000",
		"dir /run/user/1000\nsocket /run/docker.sock\nlink /var/run -> /run",
		"socket /var/run/docker.sock",
		"link /run/user/1000 -> /home/u/proj/run",
	))
	for _, extra := range []string{
		"dir /srv/data\nfile /srv/data/.env",
		"link /home/u/link -> /home/u/proj",
		"dir /mnt/x",
		"file /home/u/proj/.env\nfile /home/u/proj/secrets/key.pem",
		"dir /home/u/proj/data",
		"file /etc/ssl/certs/ca.pem",
		"link /home/u/proj/out -> /tmp/out",
		"dir /home/u/dotfiles/vim",
	} {
		if s.pick(2) == 1 {
			s.addTree(extra)
		}
	}

	// The settings.
	if p := s.choose("", "restricted", "workspace", "network", "network", "workspace"); p != "" {
		s.settings = append(s.settings, "profile: "+p)
	}
	if c := s.choose("", "", home, home+"/proj", home+"/proj/sub", home+"/link", home+"/missing", home+"/.ssh",
		hh+"/x", "/srv/data", "/", "proj", "/tmp", home+"/dotfiles", home+"/.config", home+"/proj/data"); c != "" {
		s.settings = append(s.settings, "cwd: "+strconv.Quote(c))
	}
	if m := s.choose("", "", "auto", "real", "profile"); m != "" {
		s.settings = append(s.settings, "home_mode: "+m)
	}
	paths := []string{"/srv/data", home, home + "/proj", home + "/proj/sub", home + "/.ssh", home + "/.config",
		home + "/link", "/etc", "/tmp", home + "/dotfiles", home + "/proj/data", hh + "/cache", "/srv/missing",
		"rel/dir", "/mnt/x", home + "/proj/keys", "/run", home + "/.hermes"}
	if n := s.pick(4); n > 0 {
		s.settings = append(s.settings, "binds:")
		for i := 0; i < n; i++ {
			src := paths[s.pick(len(paths))]
			line := "  - src: " + strconv.Quote(src)
			switch d := s.pick(4); d {
			case 1:
				line += "\n    dest: " + strconv.Quote(src)
			case 2, 3:
				dests := []string{"/mnt/x", home + "/proj/data", "/tmp/x", "/tmp", "/srv/data", home, home + "/proj/sub",
					home + "/link", "/mnt/missing", home + "/.hermes/x", home + "/proj/new", "/opt"}
				line += "\n    dest: " + strconv.Quote(dests[s.pick(len(dests))])
			}
			switch s.pick(3) {
			case 1:
				line += "\n    readonly: true"
			case 2:
				line += "\n    readonly: false"
			}
			s.settings = append(s.settings, line)
		}
	}
	if n := s.pick(3); n > 0 {
		s.settings = append(s.settings, "hide:")
		for i := 0; i < n; i++ {
			s.settings = append(s.settings, "  - "+strconv.Quote(s.choose("**/*.pem", "secrets/", ".env*", "~/.hermes/cache/scratch/*",
				"/srv/data/*", "sub", "~/proj/sub", "data/", "~/dotfiles/*", "keys")))
		}
	}
	if s.pick(8) == 1 {
		s.settings = append(s.settings, "seccomp:\n  allow: [ptrace]")
	}
	switch s.pick(8) {
	case 1:
		s.flags = append(s.flags, "profile "+s.choose("restricted", "workspace", "network"))
	case 2:
		s.flags = append(s.flags, "cwd "+s.choose(home, home+"/proj/sub", "/srv/data", home+"/.ssh"))
	}
	// H7 and H8 (drawn last, so the corpus of earlier findings keeps
	// its meaning): credential variables pointing anywhere, agent
	// sockets, the system bus.
	for i, n := 0, s.pick(3); i < n; i++ {
		v := s.choose("SSH_AUTH_SOCK", "GNUPGHOME", "KUBECONFIG", "DOCKER_CONFIG", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS")
		target := s.choose(home+"/.agent.sock", "/srv/keys", home+"/proj/.gnupg", home, home+"/proj", "/srv/data",
			home+"/.ssh/agent", hh+"/cache/scratch/s", "/run/user/1000/bus", "/tmp/ssh-x/agent", "rel/x", home+"/link/k", "/etc")
		if v == "DBUS_SESSION_BUS_ADDRESS" {
			target = "unix:path=" + target
		}
		s.host = append(s.host, "env "+v+"="+target)
	}
	s.addTree(s.choose("", "socket /home/u/.agent.sock", "dir /srv/keys/private-keys-v1.d", "dir /home/u/proj/.gnupg",
		"socket /run/dbus/system_bus_socket\nlink /var/run -> /run", "socket /home/u/.1password/agent.sock\nfile /home/u/.git-credentials"))
	// H9: entries kept read-only inside the writable directories.
	s.addTree(s.choose("", "dir /home/u/proj/.git/hooks\nfile /home/u/proj/.git/config", "file /home/u/proj/.envrc\ndir /home/u/proj/.vscode",
		"file /home/u/.bashrc\ndir /home/u/.local/bin", "file /srv/data/.envrc\ndir /srv/data/.git/hooks",
		"link /home/u/proj/.idea -> /srv/data", "dir /home/u/proj/sub/.git/hooks\nfile /home/u/proj/.git/config",
		"file /home/u/proj/.git/config = [core]\\n\\thooksPath = data/hooks\ndir /home/u/proj/data/hooks",
		"file /home/u/.gitconfig = [core] hooksPath = ~/proj/sub\ndir /home/u/proj/sub/x"))
	s.addTree(s.choose("", "file /home/u/proj/sub/.git/config\ndir /home/u/proj/sub/.git/hooks",
		"file /home/u/proj/.git/modules/m/config\ndir /home/u/proj/.git/modules/m/hooks",
		"dir /home/u/.git/hooks\nfile /home/u/proj/.git/config"))
	// S3, H3: tmpfs bounds (0: unbounded, recorded so) and the socket groups.
	if v := s.choose("", "", "tmp_mb: 0", "tmp_mb: 1", "tmp_mb: 4096", "network:\n  udp: false"); v != "" {
		s.settings = append(s.settings, v)
	}
	if a := s.choose("", "", ".vscode", ".git/hooks", "core.hooksPath"); a != "" {
		s.settings = append(s.settings, "protect:\n  allow: ["+a+"]")
	}
	// H10 (drawn last): home trees with allowed, denied, unknown and
	// symlinked entries, PATH directories under HOME, home.allow and the
	// denylist layout.
	for i, n := 0, s.pick(4); i < n; i++ {
		s.addTree(s.choose("dir /home/u/.zz\nfile /home/u/.zzfile", "file /home/u/.cache/huggingface/token\ndir /home/u/.cache/pip",
			"file /home/u/dotfiles/bashrc\nlink /home/u/.bashrc -> dotfiles/bashrc",
			"file /home/u/proj/cfg/gitconfig\nlink /home/u/.gitconfig -> proj/cfg/gitconfig",
			"file /home/u/proj/cfg/gitconfig\nlink /home/u/proj/gitconfig -> cfg/gitconfig\nlink /home/u/.gitconfig -> proj/gitconfig",
			"file /home/u/.config/git/config\ndir /home/u/.config/zz\nfile /home/u/.local/share/zz/z",
			"dir /home/u/.local/share/keyrings\nfile /home/u/.cargo/credentials.toml\ndir /home/u/.cargo/bin",
			"file /home/u/.tools/bin/hello", "link /home/u/.mytool -> /home/u/.ssh", "link /home/u/Documents -> /srv/data"))
	}
	if s.pick(2) == 1 {
		s.host = append(s.host, "env PATH=/usr/bin:"+home+"/.tools/bin:"+home+"/.cargo/bin")
	}
	if h := s.choose("", "", "home:\n  layout: denylist", "home:\n  allow: [.mytool, .zz, .ssh/x]", "home:\n  allow: [\".config/zz\", \".local/share/zz\"]"); h != "" {
		s.settings = append(s.settings, h)
	}
	s.tree = consistentTree(s.tree)
	return s
}

// consistentTree drops the tree lines that lie below a symlink, a file or
// a socket of the tree (and repeated paths), so the synthetic host is one
// a real file system could be.
func consistentTree(lines []string) []string {
	leaf := map[string]bool{}
	for _, l := range lines {
		kind, rest, _ := strings.Cut(l, " ")
		p := treePath(rest)
		if kind != "dir" {
			leaf[p] = true
		}
	}
	seen := map[string]bool{}
	var out []string
	for _, l := range lines {
		_, rest, _ := strings.Cut(l, " ")
		p := treePath(rest)
		ok := !seen[p]
		for a := path.Dir(p); ok && a != "/"; a = path.Dir(a) {
			ok = !leaf[a]
		}
		if ok {
			seen[p] = true
			out = append(out, l)
		}
	}
	return out
}

// treePath is the path of a tree line's rest ("P", "P -> TARGET",
// "P = CONTENT").
func treePath(rest string) string {
	p, _, _ := strings.Cut(rest, " -> ")
	p, _, _ = strings.Cut(p, " = ")
	return p
}

// txtar renders the scenario as a case archive.
func (s *scenario) txtar() string {
	var b strings.Builder
	fmt.Fprintf(&b, "FuzzVerify input %q\n-- host --\n", s.data)
	for _, l := range s.host {
		b.WriteString(l + "\n")
	}
	b.WriteString("-- tree --\n")
	for _, l := range s.tree {
		b.WriteString(l + "\n")
	}
	b.WriteString("-- settings.yaml --\n")
	for _, l := range s.settings {
		b.WriteString(l + "\n")
	}
	if len(s.flags) > 0 {
		b.WriteString("-- flags --\n")
		for _, l := range s.flags {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// testCase builds the compiler request as loadCase does for an archive.
func (s *scenario) testCase(t *testing.T) testCase {
	host := &facts.Host{UID: 1000, Home: "/home/u", Env: map[string]string{}, Kernel: "6.8.0",
		HardAS: facts.Unlimited, HardCPU: facts.Unlimited, HardNProc: 63000, LandlockABI: 6, Arch: "x86_64",
		Bwrap: hostprobe.BwrapInfo{Path: "/usr/bin/bwrap", Version: "0.8.0", Options: map[string]bool{"--disable-userns": true, "--size": true}}}
	tree := factstest.Tree{"/proc": {Kind: invocation.KindDir}, "/dev": {Kind: invocation.KindDir},
		"/tmp": {Kind: invocation.KindDir}, "/etc": {Kind: invocation.KindDir}}
	parseHost(t, host, strings.Join(s.host, "\n"))
	parseTree(t, tree, strings.Join(s.tree, "\n"))
	if host.HermesHome == "" {
		host.HermesHome = host.Home + "/.hermes"
	}
	if host.ProcessCwd == "" {
		host.ProcessCwd = host.Home + "/proj"
	}
	host.FS = tree
	req := &Request{Host: host, File: "fuzz.yaml", Source: []byte(strings.Join(s.settings, "\n") + "\n")}
	for _, l := range s.flags {
		k, v, _ := strings.Cut(l, " ")
		switch k {
		case "profile":
			req.Profile = v
		case "cwd":
			req.Cwd = v
		}
	}
	return testCase{name: "fuzz", req: req}
}
