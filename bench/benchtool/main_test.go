package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

func TestBareArgs(t *testing.T) {
	inv := &invocation.Invocation{
		Bwrap: invocation.Bwrap{Path: "/usr/bin/bwrap", Args: []string{
			"--unshare-all", "--ro-bind", "/", "/", "--ro-bind-data", "3", "/h/.npmrc",
			"--tmpfs", "/h/.ssh", "--ro-bind-data", "4", "/h/.netrc", "--chdir", "/h/p",
			"--info-fd", "5", "--block-fd", "6", "--json-status-fd", "7", "--seccomp", "8"}},
		FDs: []invocation.FD{{Num: 3, Kind: invocation.FDEmpty}, {Num: 4, Kind: invocation.FDEmpty}, {Num: 5, Kind: invocation.FDInfo},
			{Num: 6, Kind: invocation.FDBlock}, {Num: 7, Kind: invocation.FDStatus}, {Num: 8, Kind: invocation.FDSeccomp}},
	}
	got, empties, err := bareArgs(inv, 20, "9")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"--unshare-all", "--ro-bind", "/", "/", "--ro-bind-data", "20", "/h/.npmrc",
		"--tmpfs", "/h/.ssh", "--ro-bind-data", "21", "/h/.netrc", "--chdir", "/h/p", "--seccomp", "9"}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(empties, []int{20, 21}) {
		t.Fatalf("got %q %v\nwant %q [20 21]", got, empties, want)
	}

	// Hermes' chain: the same without the seccomp program.
	got, _, err = bareArgs(inv, 20, "")
	if err != nil || !reflect.DeepEqual(got, want[:len(want)-2]) {
		t.Fatalf("without seccomp: got %q, %v\nwant %q", got, err, want[:len(want)-2])
	}

	// A path that looks like an option is a value, not an option.
	inv.Bwrap.Args = []string{"--ro-bind", "--seccomp", "/x"}
	inv.FDs = nil
	if got, _, err := bareArgs(inv, 20, "9"); err != nil || !reflect.DeepEqual(got, inv.Bwrap.Args) {
		t.Fatalf("got %q, %v", got, err)
	}
	for _, bad := range [][]string{{"--unknown-option"}, {"--bind", "/a"}} {
		inv.Bwrap.Args = bad
		if _, _, err := bareArgs(inv, 20, "9"); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{"/usr/bin/bwrap": "/usr/bin/bwrap", "a b": "'a b'", "it's": `'it'\''s'`, "": "''"} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
	if !strings.Contains(shellQuote("$HOME"), "'") {
		t.Error("$ not quoted")
	}
}
