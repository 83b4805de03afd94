package facts

import (
	"github.com/bwpolicy/bwpolicy/facts/factstest"

	"reflect"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/profile"
	"github.com/bwpolicy/bwpolicy/settings"
)

const sampleMountinfo = `22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
30 22 0:26 / /proc rw - proc proc rw
40 22 8:1 /home/u /var/tmp/mirror rw,relatime shared:1 - ext4 /dev/sda1 rw
41 22 8:1 /home/u/.ssh /mnt/just\040ssh rw - ext4 /dev/sda1 rw
42 22 8:2 /home/u /mnt/other-disk rw - ext4 /dev/sda2 rw
43 22 8:1 /srv /srv2 rw - ext4 /dev/sda1 rw
50 22 0:40 /@home /home rw - btrfs /dev/sdb rw
51 22 0:40 / /mnt/pool rw - btrfs /dev/sdb rw
`

// TestSecondLocations: a bind of the home shows its hidden paths again;
// a bind of the hidden directory itself is wholly inside it; another
// device, or a subtree without the path, shows nothing; btrfs subvolumes
// mounted at their parent are found through the root field.
func TestSecondLocations(t *testing.T) {
	mounts, err := ParseMountinfo([]byte(sampleMountinfo[:strings.Index(sampleMountinfo, "50 22")]))
	if err != nil {
		t.Fatal(err)
	}
	if got := mounts[3].Point; got != "/mnt/just ssh" {
		t.Errorf("unescaped point %q", got)
	}
	got := SecondLocations(mounts, "/home/u/.ssh")
	want := []string{"/var/tmp/mirror/.ssh", "/mnt/just ssh"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SecondLocations = %q, want %q", got, want)
	}
	if got := SecondLocations(mounts, "/etc/shadow"); got != nil {
		t.Errorf("/etc/shadow: %q", got)
	}
	btrfs, _ := ParseMountinfo([]byte(sampleMountinfo))
	if got := SecondLocations(btrfs, "/home/u/.aws"); !reflect.DeepEqual(got, []string{"/mnt/pool/@home/u/.aws"}) {
		t.Errorf("btrfs: %q", got)
	}
	if _, err := ParseMountinfo([]byte("1 2 3\n")); err == nil {
		t.Error("a malformed line parsed")
	}
}

// TestGatherMirrors: with the denylist home layout, Gather hides each
// present hidden path at its second location (recorded as a mirror of
// it), skips absent ones and places the sandbox replaces, and an
// unreadable table changes nothing. TestGatherHomeMirrors is the
// allowlist layout.
func TestGatherMirrors(t *testing.T) {
	tree := factstest.Tree{
		"/proc/self/mountinfo":          {Kind: "file", Content: sampleMountinfo[:strings.Index(sampleMountinfo, "50 22")] + "44 22 8:1 /home/u /tmp/m rw - ext4 /dev/sda1 rw\n"},
		"/home/u/proj":                  {Kind: "dir"},
		"/home/u/.ssh/id_rsa":           {Kind: "file"},
		"/var/tmp/mirror/.ssh":          {Kind: "dir"},
		"/var/tmp/mirror/proj":          {Kind: "dir"},
		"/mnt/just ssh/id_rsa":          {Kind: "file"},
		"/home/u/.bash_history":         {Kind: "file"},
		"/var/tmp/mirror/.bash_history": {Kind: "file"},
	}
	h := &Host{FS: tree, UID: 1000, Home: "/home/u", HermesHome: "/home/u/.hermes", ProcessCwd: "/home/u/proj"}
	p := &profile.Profile{HiddenHome: map[string]bool{".ssh": true, ".aws": true, ".bash_history": true}}
	deny := &settings.Settings{Home: &settings.HomePolicy{Layout: settings.HomeDenylist}}
	got := mirrorsOf(Gather(h, deny, p))
	want := []string{"/var/tmp/mirror/.bash_history <- /home/u/.bash_history (H7)", "/var/tmp/mirror/.ssh <- /home/u/.ssh (S5)", "/mnt/just ssh <- /home/u/.ssh (S5)"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mirrors:\n got %q\nwant %q", got, want)
	}
	delete(tree, "/proc/self/mountinfo")
	for _, x := range Gather(h, deny, p).Hidden {
		if x.MirrorOf != "" {
			t.Errorf("mirror without a mount table: %+v", x)
		}
	}
	// A table past the bound, or one that does not parse, is said.
	for _, content := range []string{strings.Repeat("x", maxMountinfo+1), "garbage\n"} {
		tree["/proc/self/mountinfo"] = Stat{Kind: "file", Content: content}
		if notes := Gather(h, &settings.Settings{}, p).MountNotes; len(notes) != 1 || !strings.Contains(notes[0], "not looked for") {
			t.Errorf("notes for a bad table: %q", notes)
		}
	}
}

// mirrorsOf lists f's second locations as "path <- what it shows".
func mirrorsOf(f *Facts) []string {
	var out []string
	for _, x := range f.Hidden {
		if x.MirrorOf != "" {
			out = append(out, x.Path+" <- "+x.MirrorOf+" ("+string(x.Why)+")")
		}
	}
	return out
}

// TestGatherHomeMirrors: with the allowlist home layout (H10), a second
// mount of the whole home directory is hidden whole (the layout cannot
// be rebuilt there, and an unknown ~/.zz would show through it), as is a
// second mount of a directory the layout leaves out (~/.mozilla) or
// rebuilds (~/.config); a second mount of a directory the layout shows
// (~/proj) stays visible, with the denied paths in it hidden one by one.
func TestGatherHomeMirrors(t *testing.T) {
	table := `22 1 8:1 / / rw - ext4 /dev/sda1 rw
30 22 0:26 / /proc rw - proc proc rw
40 22 8:1 /home/u /var/tmp/mirror rw - ext4 /dev/sda1 rw
41 22 8:1 /home/u/.mozilla /mnt/moz rw - ext4 /dev/sda1 rw
42 22 8:1 /home/u/.config /mnt/cfg rw - ext4 /dev/sda1 rw
43 22 8:1 /home/u/proj /mnt/proj rw - ext4 /dev/sda1 rw
44 22 8:2 /home/u /mnt/other-disk rw - ext4 /dev/sda2 rw
`
	tree := factstest.Tree{"/proc/self/mountinfo": {Kind: "file", Content: table}}
	for _, d := range []string{"/home/u", "/var/tmp/mirror", "/mnt/other-disk"} {
		tree[d+"/.zz/secret"] = Stat{Kind: "file"}
		tree[d+"/.mozilla/cookies"] = Stat{Kind: "file"}
		tree[d+"/.config/zz/token"] = Stat{Kind: "file"}
		tree[d+"/proj/.env"] = Stat{Kind: "file"}
	}
	tree["/mnt/moz/cookies"] = Stat{Kind: "file"}
	tree["/mnt/cfg/zz/token"] = Stat{Kind: "file"}
	tree["/mnt/proj/.env"] = Stat{Kind: "file"}
	h := &Host{FS: tree, UID: 1000, Home: "/home/u", HermesHome: "/home/u/.hermes", ProcessCwd: "/home/u/proj"}
	p := &profile.Profile{}
	s := &settings.Settings{Hide: []string{"~/proj/.env"}}
	f := Gather(h, s, p)
	got := mirrorsOf(f)
	want := []string{
		"/var/tmp/mirror <- /home/u (H10)",
		"/mnt/moz <- /home/u/.mozilla (H10)",
		"/mnt/cfg <- /home/u/.config (H10)",
		"/mnt/proj/.env <- /home/u/proj/.env (H4)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mirrors:\n got %q\nwant %q", got, want)
	}
}
