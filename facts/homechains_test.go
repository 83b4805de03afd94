package facts

import (
	"github.com/bwpolicy/bwpolicy/facts/factstest"

	"fmt"
	"slices"
	"testing"

	"github.com/bwpolicy/bwpolicy/profile"
	"github.com/bwpolicy/bwpolicy/settings"
)

// TestHomeChains: the home paths the host reads or runs whose symlink
// chain passes through a link the sandbox may write, or ends at an
// absent path it may write, at any hop (a directory link on the way
// included), in both layouts; not what a mask or the layout's tmpfs
// keeps off the host.
func TestHomeChains(t *testing.T) {
	tree := func() factstest.Tree {
		return factstest.Tree{
			"/home/u/proj":               {Kind: "dir"},
			"/home/u/proj/real/config":   {Kind: "file"},
			"/home/u/proj/l":             {Kind: "symlink", Target: "real"},
			"/home/u/.kube":              {Kind: "symlink", Target: "/home/u/proj/l"},
			"/home/u/proj/dots/bashrc":   {Kind: "file"},
			"/home/u/proj/d":             {Kind: "symlink", Target: "dots"},
			"/home/u/.bashrc":            {Kind: "symlink", Target: "proj/d/bashrc"},     // a directory link on the way
			"/home/u/.bash_profile":      {Kind: "symlink", Target: "proj/dots/profile"}, // absent target
			"/home/u/.config/autostart":  {Kind: "symlink", Target: "../proj/dots/auto"}, // left out, absent target
			"/home/u/.config/systemd":    {Kind: "symlink", Target: "/home/u/proj/dots/sd"},
			"/home/u/.ssh":               {Kind: "symlink", Target: "proj/keys/ssh"},
			"/home/u/proj/keys/ssh/id":   {Kind: "file"},
			"/home/u/.aws":               {Kind: "symlink", Target: "proj/keys/aws"}, // masked: .aws/config inside stays off the host
			"/home/u/proj/keys/aws/cred": {Kind: "file"},
			"/run/user/1000":             {Kind: "dir"},
		}
	}
	p := &profile.Profile{CwdWritable: true, HiddenHome: map[string]bool{".kube": true, ".ssh": true, ".aws": true}}
	run := func(tr factstest.Tree, s *settings.Settings, cwd string) []string {
		h := &Host{FS: tr, UID: 1000, Home: "/home/u", HermesHome: "/home/u/.hermes", ProcessCwd: cwd, Env: map[string]string{}}
		var got []string
		for _, c := range Gather(h, s, p).HomeChains {
			got = append(got, fmt.Sprintf("%s %s %s missing=%v root=%s/%d allowed=%v", c.Why, c.Entry, c.Path, c.Missing, c.Root, c.BindIndex, c.Allowed))
		}
		return got
	}
	want := []string{
		"denied /home/u/.kube /home/u/proj/l missing=false root=/home/u/proj/-1 allowed=false",
		"start-up /home/u/.bash_profile /home/u/proj/dots/profile missing=true root=/home/u/proj/-1 allowed=false",
		"start-up /home/u/.bashrc /home/u/proj/d missing=false root=/home/u/proj/-1 allowed=false",
		"start-up /home/u/.config/autostart /home/u/proj/dots/auto missing=true root=/home/u/proj/-1 allowed=false",
		"start-up /home/u/.config/systemd/user /home/u/proj/dots/sd/user missing=true root=/home/u/proj/-1 allowed=false",
		// Any dot link of the home, whatever its name: the directory
		// itself could be created.
		"dot link /home/u/.config/systemd /home/u/proj/dots/sd missing=true root=/home/u/proj/-1 allowed=false",
	}
	for _, layout := range []string{settings.HomeAllowlist, settings.HomeDenylist} {
		got := run(tree(), &settings.Settings{Home: &settings.HomePolicy{Layout: layout}}, "/home/u/proj")
		if !slices.Equal(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", layout, got, want)
		}
	}

	// protect.allow names a start-up entry: listed as allowed (a warning).
	got := run(tree(), &settings.Settings{Protect: &settings.ProtectPolicy{Allow: []string{".bash_profile"}}}, "/home/u/proj")
	if !slices.Contains(got, "start-up /home/u/.bash_profile /home/u/proj/dots/profile missing=true root=/home/u/proj/-1 allowed=true") {
		t.Errorf("protect.allow: %q", got)
	}

	// A read-write bind of proj (cwd elsewhere): the bind's index.
	rw := false
	got = run(tree(), &settings.Settings{Cwd: "/tmp", Binds: []settings.Bind{{Src: "/home/u/proj", Readonly: &rw}}}, "/tmp")
	if len(got) != len(want) || got[0] != "denied /home/u/.kube /home/u/proj/l missing=false root=/home/u/proj/0 allowed=false" {
		t.Errorf("bind:\n got %q", got)
	}

	// Targets that exist and no link in the writable set: nothing (the
	// targets are bound read-only: homeLinkTargets, linkedProtected).
	tr := tree()
	delete(tr, "/home/u/proj/l")
	tr["/home/u/.kube"] = Stat{Kind: "symlink", Target: "proj/real"}
	tr["/home/u/.bashrc"] = Stat{Kind: "symlink", Target: "proj/dots/bashrc"}
	tr["/home/u/proj/dots/profile"] = Stat{Kind: "file"}
	tr["/home/u/proj/dots/auto"] = Stat{Kind: "dir"}
	tr["/home/u/proj/dots/sd/user"] = Stat{Kind: "dir"}
	if got := run(tr, &settings.Settings{}, "/home/u/proj"); len(got) != 0 {
		t.Errorf("existing targets: %q", got)
	}

	// The home directory as the working directory. Allowlist: its top
	// level is the layout's tmpfs and the dot entries are not writable;
	// the links in the non-dot proj still are. Denylist: ~/.kube, a
	// link the command could replace, counts too.
	hw := &settings.Settings{Cwd: "/home/u"}
	got = run(tree(), hw, "/home/u")
	if !slices.Contains(got, "denied /home/u/.kube /home/u/proj/l missing=false root=/home/u/-1 allowed=false") || slices.ContainsFunc(got, func(s string) bool {
		return s == "denied /home/u/.kube /home/u/.kube missing=false root=/home/u/-1 allowed=false"
	}) {
		t.Errorf("allowlist, cwd HOME: %q", got)
	}
	hw.Home = &settings.HomePolicy{Layout: settings.HomeDenylist}
	if got := run(tree(), hw, "/home/u"); !slices.Contains(got, "denied /home/u/.kube /home/u/.kube missing=false root=/home/u/-1 allowed=false") {
		t.Errorf("denylist, cwd HOME: %q", got)
	}
}

// TestHomeDotLinkChains: every dot entry of the home that is a symlink
// is held by what it is, whatever its name (~/.xprofile, ~/.zz-anything,
// ~/.config/zz-app), in both layouts: its final target inside the
// writable set is bound read-only (homeLinkTargets); a second link there,
// an absent end there, or an end that is or holds a writable directory
// is a HomeChain (refused), with the whole chain.
func TestHomeDotLinkChains(t *testing.T) {
	p := &profile.Profile{CwdWritable: true}
	tree := func() factstest.Tree {
		return factstest.Tree{
			"/home/u/dotfiles/bashrc":  {Kind: "file"},
			"/home/u/dotfiles/zz":      {Kind: "file"},
			"/home/u/dotfiles/app/rc":  {Kind: "file"},
			"/home/u/.xprofile":        {Kind: "symlink", Target: "dotfiles/bashrc"},
			"/home/u/.zz-anything":     {Kind: "symlink", Target: "/home/u/dotfiles/zz"},
			"/home/u/.config/zz-app":   {Kind: "symlink", Target: "../dotfiles/app"},
			"/home/u/.zz-chain":        {Kind: "symlink", Target: "dotfiles/mid"}, // two links
			"/home/u/dotfiles/mid":     {Kind: "symlink", Target: "bashrc"},
			"/home/u/.zz-later":        {Kind: "symlink", Target: "dotfiles/later/rc"}, // created later
			"/home/u/.zz-outside":      {Kind: "symlink", Target: "/etc/passwd"},       // not writable: nothing
			"/home/u/.zz-home":         {Kind: "symlink", Target: "."},                 // the home itself: nothing
			"/home/u/notdot":           {Kind: "symlink", Target: "dotfiles/zz"},       // a non-dot entry: itself
			"/home/u/proj/.zz-inproj":  {Kind: "symlink", Target: "x"},                 // not an entry of HOME
			"/run/user/1000":           {Kind: "dir"},
			"/home/u/.hermes/cache":    {Kind: "dir"},
			"/home/u/dotfiles/app/sub": {Kind: "dir"},
		}
	}
	run := func(tr factstest.Tree, s *settings.Settings, cwd string) (chains, held []string) {
		h := &Host{FS: tr, UID: 1000, Home: "/home/u", HermesHome: "/home/u/.hermes", ProcessCwd: cwd, Env: map[string]string{}}
		f := Gather(h, s, p)
		for _, c := range f.HomeChains {
			chains = append(chains, fmt.Sprintf("%s %s %s missing=%v holds=%v root=%s chain=%v", c.Why, c.Entry, c.Path, c.Missing, c.Holds, c.Root, c.Chain))
		}
		for _, pr := range f.Protected {
			if pr.Name == HomeLinkTarget {
				held = append(held, pr.Path)
			}
		}
		return chains, held
	}
	wantChains := []string{
		"dot link /home/u/.zz-chain /home/u/dotfiles/mid missing=false holds=false root=/home/u chain=[/home/u/.zz-chain /home/u/dotfiles/mid /home/u/dotfiles/bashrc]",
		"dot link /home/u/.zz-later /home/u/dotfiles/later/rc missing=true holds=false root=/home/u chain=[/home/u/.zz-later /home/u/dotfiles/later/rc]",
	}
	wantHeld := []string{"/home/u/dotfiles/app", "/home/u/dotfiles/bashrc", "/home/u/dotfiles/zz"}
	for _, layout := range []string{settings.HomeAllowlist, settings.HomeDenylist} {
		chains, held := run(tree(), &settings.Settings{Cwd: "/home/u", Home: &settings.HomePolicy{Layout: layout}}, "/home/u")
		slices.Sort(chains)
		slices.Sort(held)
		if !slices.Equal(chains, wantChains) {
			t.Errorf("%s chains:\n got %q\nwant %q", layout, chains, wantChains)
		}
		if !slices.Equal(held, wantHeld) {
			t.Errorf("%s held:\n got %q\nwant %q", layout, held, wantHeld)
		}
	}

	// A dot link whose end is the writable directory, or holds it.
	tr := tree()
	tr["/home/u/.zz-dir"] = Stat{Kind: "symlink", Target: "dotfiles/app"}
	chains, _ := run(tr, &settings.Settings{Cwd: "/home/u/dotfiles/app/sub"}, "/home/u/dotfiles/app/sub")
	want := "dot link /home/u/.zz-dir /home/u/dotfiles/app missing=false holds=true root=/home/u/dotfiles/app/sub chain=[/home/u/.zz-dir /home/u/dotfiles/app]"
	if !slices.Contains(chains, want) {
		t.Errorf("holds: got %q, want %q among them", chains, want)
	}

	// More dot entries than the bound: refused rather than looked past.
	tr = tree()
	for i := 0; i <= maxHomeEntries; i++ {
		tr[fmt.Sprintf("/home/u/.config/e%05d", i)] = Stat{Kind: "file"}
	}
	h := &Host{FS: tr, UID: 1000, Home: "/home/u", HermesHome: "/home/u/.hermes", ProcessCwd: "/home/u/proj", Env: map[string]string{}}
	if got := Gather(h, &settings.Settings{Home: &settings.HomePolicy{Layout: settings.HomeDenylist}}, p).HomeDotLinksTruncated; !slices.Equal(got, []string{"/home/u/.config"}) {
		t.Errorf("truncated: %q", got)
	}
}
