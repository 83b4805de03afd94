package facts

import (
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
	tree := func() Tree {
		return Tree{
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
	run := func(tr Tree, s *settings.Settings, cwd string) []string {
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
