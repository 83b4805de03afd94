package facts

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/facts/factstest"
	"github.com/bwpolicy/bwpolicy/settings"
)

// gitIndex is a git index (version 2, SHA-1) listing paths.
func gitIndex(paths ...string) string {
	var b []byte
	b = append(b, "DIRC"...)
	b = binary.BigEndian.AppendUint32(b, 2)
	b = binary.BigEndian.AppendUint32(b, uint32(len(paths)))
	for _, p := range paths {
		entry := make([]byte, 40+20)
		entry = binary.BigEndian.AppendUint16(entry, uint16(len(p)))
		entry = append(entry, p...)
		entry = append(entry, make([]byte, 8-len(entry)%8)...)
		b = append(b, entry...)
	}
	return string(b)
}

// TestAllowedContentClasses: one row per class of what the contents
// check of the allowed entries reads, passes over or hides unread: a
// file is read whatever its extension (a script in a bin directory at
// any depth, documentation, a file with NUL bytes); a known binary
// format and what lies in the package stores' directories are shown
// unread (a store's top files are read, and a directory named as a
// store elsewhere is read as any); a text too large to read is hidden
// unread unless home.allow names it; in a git checkout, the files its
// index lists are read within a budget of their own (shown unread past
// it, or too large), the others as any, and its .git/config is read (a
// clone URL with a token).
func TestAllowedContentClasses(t *testing.T) {
	elf := "\x7fELF\x02\x01\x01" + strings.Repeat("\x00", 9)
	large := strings.Repeat("x = 1\n", maxAllowFile/6+1)
	cases := []struct {
		name   string
		file   string // the file holding secretLine (or large)
		before string // written before secretLine
		extra  factstest.Tree
		allow  []string
		hidden bool
		unread UnreadWhy
	}{
		{"py script in .local/bin", "/home/u/.local/bin/deploy.py", "#!/usr/bin/env python3\n", nil, nil, true, UnreadNone},
		{"js file", "/home/u/.gradle/init.d/ci.js", "", nil, nil, true, UnreadNone},
		{"bash file", "/home/u/.cargo/env.bash", "", nil, nil, true, UnreadNone},
		{"markdown", "/home/u/.m2/NOTES.md", "", nil, nil, true, UnreadNone},
		{"script in ~/.cargo/bin", "/home/u/.cargo/bin/deploy", "#!/bin/sh\n", nil, nil, true, UnreadNone},
		{"lib, tools, share below depth 0", "/home/u/.nvm/tools/lib/share/push.sh", "", nil, nil, true, UnreadNone},
		{"NUL in the first 8 KiB", "/home/u/.gradle/blob", "\x00\x01", nil, nil, true, UnreadNone},
		{"ELF executable", "/home/u/.cargo/bin/rg", elf, nil, nil, false, UnreadNone},
		{"gzip archive", "/home/u/.local/bin/x.gz", "\x1f\x8b\x08", nil, nil, false, UnreadNone},
		{"text named like an archive", "/home/u/.local/bin/y.gz", "", nil, nil, true, UnreadNone},
		{"npm _cacache store", "/home/u/.npm/_cacache/index-v5/ab/cd", "", nil, nil, false, UnreadNone},
		{"cargo registry", "/home/u/.cargo/registry/src/x/lib.rs", "", nil, nil, false, UnreadNone},
		{"nvm versions", "/home/u/.nvm/versions/node/v20/bin/npx", "", nil, nil, false, UnreadNone},
		{"too large text", "/home/u/.local/bin/big.sh", large, nil, nil, true, UnreadTooLarge},
		{"too large, home.allow", "/home/u/.local/bin/big.sh", large, nil, []string{".local/bin/big.sh"}, false, UnreadNone},
		{"too large ELF", "/home/u/.cargo/bin/big", elf + large, nil, nil, false, UnreadNone},
		{"checkout: tracked", "/home/u/.nvm/nvm.sh", "",
			factstest.Tree{"/home/u/.nvm/.git/index": {Kind: "file", Content: gitIndex("nvm.sh")}}, nil, true, UnreadNone},
		{"checkout: a user's scripts", "/home/u/.local/bin/deploy", "#!/bin/sh\n",
			factstest.Tree{"/home/u/.local/bin/.git/index": {Kind: "file", Content: gitIndex("deploy")}}, nil, true, UnreadNone},
		{"checkout: tracked, too large", "/home/u/.nvm/nvm.sh", large,
			factstest.Tree{"/home/u/.nvm/.git/index": {Kind: "file", Content: gitIndex("nvm.sh")}}, nil, false, UnreadNone},
		{"store's top file", "/home/u/.cargo/registry/token", "", nil, nil, true, UnreadNone},
		{"store name elsewhere", "/home/u/.gradle/x/registry/auth.json", "", nil, nil, true, UnreadNone},
		{"text starting as bzip2", "/home/u/.cargo/notes", "BZh9\n", nil, nil, true, UnreadNone},
		{"checkout: untracked", "/home/u/.nvm/alias/deploy", "",
			factstest.Tree{"/home/u/.nvm/.git/index": {Kind: "file", Content: gitIndex("nvm.sh")}}, nil, true, UnreadNone},
		{"checkout: .git/config", "/home/u/.pyenv/.git/config", "[remote \"origin\"]\n\turl = https://me:ghp_16C7e42F292c6912E7710c838347Ae178B4a@github.com/pyenv/pyenv\n",
			factstest.Tree{"/home/u/.pyenv/.git/index": {Kind: "file", Content: gitIndex("README.md")}}, nil, true, UnreadNone},
	}
	for _, c := range cases {
		tree := factstest.Tree{c.file: {Kind: "file", Content: c.before + secretLine}}
		for p, s := range c.extra {
			tree[p] = s
		}
		hidden, f := gatherSecrets(t, tree, &settings.Settings{Home: &settings.HomePolicy{Allow: c.allow}})
		if got := slices.Contains(hidden, c.file); got != c.hidden {
			t.Errorf("%s: hidden %q, want %s hidden: %v", c.name, hidden, c.file, c.hidden)
		}
		for _, sf := range f.SecretFiles {
			if sf.File == c.file && sf.Unread != c.unread {
				t.Errorf("%s: %+v, want unread %v", c.name, sf, c.unread)
			}
		}
	}
}

// TestTrackedBudget: the files a git checkout lists are read within a
// budget of their own: past it they are shown unread (as installed), not
// hidden, and the other files are still read.
func TestTrackedBudget(t *testing.T) {
	tree := factstest.Tree{"/home/u/.gradle/init.gradle": {Kind: "file", Content: secretLine}}
	var names []string
	for i := 0; i < maxAllowReads+10; i++ {
		n := fmt.Sprintf("f%03d.sh", i)
		names = append(names, n)
		tree["/home/u/.nvm/"+n] = Stat{Kind: "file", Content: secretLine}
	}
	tree["/home/u/.nvm/.git/index"] = Stat{Kind: "file", Content: gitIndex(names...)}
	hidden, f := gatherSecrets(t, tree, &settings.Settings{})
	nvm := 0
	for _, h := range hidden {
		if strings.HasPrefix(h, "/home/u/.nvm/") {
			nvm++
		}
	}
	if nvm != maxAllowReads || !slices.Contains(hidden, "/home/u/.gradle/init.gradle") {
		t.Errorf("hidden %d tracked files (want %d) and init.gradle: %q", nvm, maxAllowReads, hidden)
	}
	for _, sf := range f.SecretFiles {
		if sf.Unread != UnreadNone {
			t.Errorf("hidden unread: %+v", sf)
		}
	}
}
