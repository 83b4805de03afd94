package facts

import (
	"github.com/bwpolicy/bwpolicy/facts/factstest"

	"fmt"
	"os"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/hazard/secrets"
	"github.com/bwpolicy/bwpolicy/profile"
	"github.com/bwpolicy/bwpolicy/settings"
)

const secretLine = "export DB_PASSWORD=hunter2\n"

// gatherSecrets gathers tree's facts as user u with home /home/u, in the
// allowlist home layout, and returns the hidden paths of the two secret
// rows and the notes.
func gatherSecrets(t *testing.T, tree factstest.Tree, s *settings.Settings) (hidden []string, f *Facts) {
	t.Helper()
	tree["/home/u/proj"] = Stat{Kind: "dir"}
	h := &Host{FS: tree, UID: 1000, Home: "/home/u", HermesHome: "/home/u/.hermes", ProcessCwd: "/home/u/proj", Env: map[string]string{}}
	f = Gather(h, s, &profile.Profile{HiddenHome: map[string]bool{".ssh": true}})
	if !f.HomeLayout.Active() {
		t.Fatal("the home layout is not active")
	}
	for _, x := range f.Hidden {
		if x.Source == SourceStartupSecret || x.Source == SourceAllowedSecret {
			hidden = append(hidden, x.Path)
		}
	}
	return hidden, f
}

// TestAllowedSecrets: in the allowed entries, logs are hidden, a file
// with a credential is hidden whatever its name (tool.gz is text) or
// its NUL bytes, a file the git config names as a credential store is
// hidden wherever it is, home.allow shows what it names, and harmless
// files and what lies in the package stores' directories stay; a file at
// a store's top, in a directory named as a store elsewhere
// (~/.cargo/x/registry) and a text that starts as a binary format would
// (BZh) are read.
func TestAllowedSecrets(t *testing.T) {
	tree := factstest.Tree{
		"/home/u/.npm/_logs/x.log":         {Kind: "file", Content: "0 verbose\n"},
		"/home/u/.npm/_cacache/index":      {Kind: "file", Content: secretLine},
		"/home/u/.npm/_cacache/ix/ab/c":    {Kind: "file", Content: secretLine},
		"/home/u/.cargo/x/registry/tok":    {Kind: "file", Content: secretLine},
		"/home/u/.cargo/bzh.txt":           {Kind: "file", Content: "BZh9\n" + secretLine},
		"/home/u/.cargo/real.bz2":          {Kind: "file", Content: "BZh91AY&SY\x01\x02" + secretLine},
		"/home/u/.gradle/init.gradle":      {Kind: "file", Content: "credentials {\n  password 'pw'\n}\n"},
		"/home/u/.gradle/build.gradle.kts": {Kind: "file", Content: "plugins { java }\n"},
		"/home/u/.config/git/config":       {Kind: "file", Content: "[credential]\n\thelper = store --file /srv/tok\n"},
		"/srv/tok":                         {Kind: "file", Content: "https://u:pw@h\n"},
		"/home/u/.local/bin/deploy":        {Kind: "file", Content: "#!/bin/sh\ncurl -u admin:pw https://x\n"},
		"/home/u/.local/bin/tool.gz":       {Kind: "file", Content: secretLine},
		"/home/u/.local/bin/blob":          {Kind: "file", Content: "\x00" + secretLine},
		"/home/u/.m2/settings-ci.xml":      {Kind: "file", Content: "<password>pw</password>\npassword pw\n"},
		"/home/u/.cache/gh/hosts.yml":      {Kind: "file", Content: "oauth_token: gho_x\n"},
	}
	hidden, f := gatherSecrets(t, tree, &settings.Settings{Home: &settings.HomePolicy{Allow: []string{".m2/settings-ci.xml"}}})
	slices.Sort(hidden)
	want := []string{"/home/u/.cargo/bzh.txt", "/home/u/.cargo/x/registry/tok", "/home/u/.gradle/init.gradle", "/home/u/.local/bin/blob",
		"/home/u/.local/bin/deploy", "/home/u/.local/bin/tool.gz", "/home/u/.npm/_cacache/index", "/home/u/.npm/_logs", "/srv/tok"}
	if !slices.Equal(hidden, want) {
		t.Errorf("hidden:\n got %q\nwant %q", hidden, want)
	}
	if !f.HomeLayout.Hides("/home/u/.cache/gh/hosts.yml") {
		t.Error("~/.cache/gh is shown")
	}
	for _, sf := range f.SecretFiles {
		if sf.File == "/home/u/.gradle/init.gradle" && (!slices.Equal(sf.Lines, []int{2}) || sf.Rules[0] != secrets.RulePasswordLine || sf.Rel != ".gradle/init.gradle") {
			t.Errorf("init.gradle: %+v", sf)
		}
		if sf.File == "/srv/tok" && (sf.NamedBy != "/home/u/.config/git/config" || sf.Line != 2) {
			t.Errorf("the store: %+v", sf)
		}
	}
}

// TestAllowedSecretsBudget: one case per bound of the contents check:
// just inside it, the secret file is read and hidden for its line;
// past it, it is hidden unread (UnreadBudget, UnreadTooLarge,
// UnreadDepth), by itself or with its directory, and for the budget
// and the depth a note names it.
func TestAllowedSecretsBudget(t *testing.T) {
	many := func(n int, content string) factstest.Tree {
		tree := factstest.Tree{}
		for i := 0; i < n; i++ {
			tree[fmt.Sprintf("/home/u/.local/bin/a%05d", i)] = Stat{Kind: "file", Content: content}
		}
		tree["/home/u/.local/bin/zz"] = Stat{Kind: "file", Content: secretLine}
		return tree
	}
	deep := func(depth int) factstest.Tree {
		return factstest.Tree{"/home/u/.local/bin" + strings.Repeat("/d", depth-1) + "/s": {Kind: "file", Content: secretLine}}
	}
	line := strings.Repeat("x", 99) + "\n"
	big := strings.Repeat(line, (maxAllowFile-len(secretLine))/len(line))
	elf := "\x7fELF" + strings.Repeat("\x00", 16)
	cases := []struct {
		name   string
		tree   factstest.Tree
		unread UnreadWhy // of the one file hidden; UnreadNone: hidden for its line
		hidden string    // the path hidden
		note   bool
	}{
		{"visits inside", many(maxAllowVisits/2, elf), UnreadNone, "/home/u/.local/bin/zz", false},
		{"reads inside", many(maxAllowReads-2, "x\n"), UnreadNone, "/home/u/.local/bin/zz", false},
		{"reads past", many(maxAllowReads, "x\n"), UnreadBudget, "/home/u/.local/bin/zz", true},
		{"reads far past", many(maxAllowReads+maxUnreadHidden, "x\n"), UnreadBudget, "/home/u/.local/bin", true},
		{"bytes inside", many(maxAllowBytes/len(big)-2, big), UnreadNone, "/home/u/.local/bin/zz", false},
		{"bytes past", many(maxAllowBytes/len(big)+1, big), UnreadBudget, "/home/u/.local/bin/zz", true},
		{"file inside", factstest.Tree{"/home/u/.local/bin/s": {Kind: "file", Content: secretLine + big}}, UnreadNone, "/home/u/.local/bin/s", false},
		{"file past", factstest.Tree{"/home/u/.local/bin/s": {Kind: "file", Content: secretLine + big + line}}, UnreadTooLarge, "/home/u/.local/bin/s", false},
		{"shallowest first", func() factstest.Tree {
			t := factstest.Tree{}
			for i := 0; i < 2*maxAllowReads; i++ {
				t[fmt.Sprintf("/home/u/.asdf/a/b/f%03d", i)] = Stat{Kind: "file", Content: "x\n"}
			}
			t["/home/u/.gradle/init.gradle"] = Stat{Kind: "file", Content: secretLine}
			return t
		}(), UnreadNone, "/home/u/.gradle/init.gradle", true},
		{"depth inside", deep(maxAllowDepth), UnreadNone, "/home/u/.local/bin" + strings.Repeat("/d", maxAllowDepth-1) + "/s", false},
		{"depth past", deep(maxAllowDepth + 1), UnreadDepth, "/home/u/.local/bin" + strings.Repeat("/d", maxAllowDepth), true},
	}
	for _, c := range cases {
		hidden, f := gatherSecrets(t, c.tree, &settings.Settings{})
		if !slices.Contains(hidden, c.hidden) {
			t.Errorf("%s: hidden %q, want %s", c.name, hidden, c.hidden)
		}
		for _, sf := range f.SecretFiles {
			if sf.File == c.hidden && sf.Unread != c.unread {
				t.Errorf("%s: %s hidden as %+v, want unread %v", c.name, c.hidden, sf, c.unread)
			}
		}
		if got := len(f.SecretNotes) > 0; got != c.note {
			t.Errorf("%s: notes %q, want a note %v", c.name, f.SecretNotes, c.note)
		}
		if c.note && !strings.Contains(f.SecretNotes[0], "home.allow: [") {
			t.Errorf("%s: the note names no setting: %s", c.name, f.SecretNotes[0])
		}
	}
}

// TestRcSecrets: a start-up file with a credential on a command line is
// hidden whole with each line and rule; one past the detector's bound is
// hidden unexamined; the file one reads into a secret variable is hidden
// wherever it is, and so is a shown file it sources that holds one; a
// harmless one stays.
func TestRcSecrets(t *testing.T) {
	tree := factstest.Tree{
		"/home/u/.bashrc":       {Kind: "file", Content: "export PATH=$HOME/bin:$PATH\nalias db='mysql -uroot -pPW'\nexport GH_TOKEN=$(cat /srv/gh)\nalias s='sshpass -f /srv/pw ssh h'\nsource ~/secrets.sh\n. ~/.bash_secrets\n"},
		"/home/u/secrets.sh":    {Kind: "file", Content: "export OPENAI_API_KEY=sk-x\n"},
		"/home/u/.bash_secrets": {Kind: "file", Content: "export OPENAI_API_KEY=sk-x\n"},
		"/srv/gh":               {Kind: "file", Content: "ghp_x\n"},
		"/srv/pw":               {Kind: "file", Content: "pw\n"},
		"/home/u/.zshrc":        {Kind: "file", Content: strings.Repeat("\n", secrets.MaxLines+1)},
		"/home/u/.profile":      {Kind: "file", Content: "[ -d \"$HOME/bin\" ] && PATH=\"$HOME/bin:$PATH\"\nmkdir -p ~/x\n"},
	}
	hidden, f := gatherSecrets(t, tree, &settings.Settings{})
	slices.Sort(hidden)
	// ~/secrets.sh (sourced, shown) is hidden; ~/.bash_secrets is left
	// out by the home layout already.
	if want := []string{"/home/u/.bashrc", "/home/u/.zshrc", "/home/u/secrets.sh", "/srv/gh", "/srv/pw"}; !slices.Equal(hidden, want) {
		t.Errorf("hidden:\n got %q\nwant %q", hidden, want)
	}
	for _, sf := range f.SecretFiles {
		switch sf.File {
		case "/home/u/.bashrc":
			if !sf.Startup || !slices.Equal(sf.Lines, []int{2}) || sf.Rules[0] != secrets.RuleAttachedPassword {
				t.Errorf(".bashrc: %+v", sf)
			}
		case "/home/u/.zshrc":
			if len(sf.Rules) != 1 || sf.Rules[0] != secrets.RuleUnexamined {
				t.Errorf(".zshrc: %+v", sf)
			}
		}
	}
}

// BenchmarkAllowedSecrets: the contents check alone on a home on disk
// whose allowed directories hold 576 text files of 2 KiB (past the
// budget of maxAllowReads files read): the cost the check adds to a
// compile when it spends its budget whole.
func BenchmarkAllowedSecrets(b *testing.B) {
	root, err := os.MkdirTemp("/var/tmp", "bwpolicy-bench-") // not /tmp: the sandbox's own /tmp covers it
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(root) })
	home := root + "/u"
	text := strings.Repeat("key_"+strings.Repeat("x", 60)+" = value\n", 28)
	for _, dir := range []string{".cargo", ".rustup", ".nvm", ".npm", ".pyenv", ".rbenv", ".asdf", ".volta", ".bun", ".deno",
		".sdkman", ".m2", ".gradle", ".conda", ".local/bin", ".local/lib", ".config/git", ".config/pip", ".config/uv",
		".config/npm", ".config/pnpm", ".config/yarn", ".config/go", ".config/fontconfig"} {
		for i := 0; i < 24; i++ {
			p := fmt.Sprintf("%s/%s/sub%d/f%02d.conf", home, dir, i%3, i)
			if err := os.MkdirAll(path.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := os.MkdirAll(home+"/proj", 0o755); err != nil {
		b.Fatal(err)
	}
	h := &Host{FS: OS{}, UID: os.Getuid(), Home: home, HermesHome: home + "/.hermes", ProcessCwd: home + "/proj", Env: map[string]string{}}
	f := Gather(h, &settings.Settings{}, &profile.Profile{})
	if !f.HomeLayout.Active() {
		b.Fatal("no layout")
	}
	if len(f.SecretNotes) == 0 {
		b.Fatal("the check did not spend its budget")
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		g := &gatherer{fs: OS{}, observed: map[string]Stat{}, walked: map[string]*Walked{}}
		g.allowedSecrets(h, f)
	}
}

// TestGitStoresDenylist: in the denylist layout (nothing walked), the
// store git's configuration names is hidden all the same, from
// ~/.gitconfig and from $GIT_CONFIG_GLOBAL; a helper without --file
// (~/.git-credentials, a denied path already) names nothing.
func TestGitStoresDenylist(t *testing.T) {
	tree := factstest.Tree{
		"/home/u/proj":       {Kind: "dir"},
		"/home/u/.gitconfig": {Kind: "file", Content: "[credential \"https://h\"]\n\thelper = store --file=/srv/a\n[credential]\n\thelper = store\n"},
		"/srv/g/config":      {Kind: "file", Content: "[credential]\n  helper = \"store --file ~/.tok\"\n"},
		"/srv/a":             {Kind: "file"},
		"/home/u/.tok":       {Kind: "file"},
	}
	h := &Host{FS: tree, UID: 1000, Home: "/home/u", HermesHome: "/home/u/.hermes", ProcessCwd: "/home/u/proj",
		Env: map[string]string{"GIT_CONFIG_GLOBAL": "/srv/g/config"}}
	f := Gather(h, &settings.Settings{Home: &settings.HomePolicy{Layout: settings.HomeDenylist}}, &profile.Profile{})
	var got []string
	for _, x := range f.Hidden {
		if x.Source == SourceAllowedSecret {
			got = append(got, x.Path)
		}
	}
	slices.Sort(got)
	if want := []string{"/home/u/.tok", "/srv/a"}; !slices.Equal(got, want) {
		t.Errorf("hidden %q, want %q", got, want)
	}
}

// TestRcSourcedBound: of the files the start-up files source, at most
// maxSourcedFiles are read: with one more, each holding a secret, one
// is not hidden.
func TestRcSourcedBound(t *testing.T) {
	tree := factstest.Tree{}
	var lines [3]strings.Builder
	for i := 0; i <= maxSourcedFiles; i++ {
		p := fmt.Sprintf("/home/u/s%02d.sh", i)
		tree[p] = Stat{Kind: "file", Content: secretLine}
		fmt.Fprintf(&lines[i*3/(maxSourcedFiles+1)], ". %s\n", p)
	}
	tree["/home/u/.bashrc"] = Stat{Kind: "file", Content: lines[0].String()}
	tree["/home/u/.zshrc"] = Stat{Kind: "file", Content: lines[1].String()}
	tree["/home/u/.profile"] = Stat{Kind: "file", Content: lines[2].String()}
	hidden, _ := gatherSecrets(t, tree, &settings.Settings{})
	if len(hidden) != maxSourcedFiles {
		t.Errorf("%d of %d sourced files hidden (%q), want the bound %d", len(hidden), maxSourcedFiles+1, hidden, maxSourcedFiles)
	}
}
