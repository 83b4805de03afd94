package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// TestVersion: `bwpolicy --version` and `bwpolicy version` print one line
// naming the invocation format (what a backend compares with `bwrun
// --version`) and exit 0; an argument is a usage error.
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}, {"-V"}} {
		var out, errb bytes.Buffer
		if code := mainCode(args, &out, &errb); code != exitOK {
			t.Fatalf("%v: exit %d, stderr %q", args, code, errb.String())
		}
		line := out.String()
		if !strings.HasPrefix(line, "bwpolicy ") || !strings.HasSuffix(line, "(invocation format "+invocation.Format+")\n") || strings.Count(line, "\n") != 1 {
			t.Fatalf("%v: %q", args, line)
		}
	}
	var out, errb bytes.Buffer
	if code := mainCode([]string{"version", "extra"}, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), "takes no arguments") {
		t.Fatalf("version extra: exit %d, %q", code, errb.String())
	}
}

// TestDidYouMean: a mistyped command names the closest one; something
// unlike every command names none.
func TestDidYouMean(t *testing.T) {
	for in, want := range map[string]string{
		"compil":  `did you mean "compile"?`,
		"chekc":   `did you mean "check"?`,
		"verfy":   `did you mean "verify"?`,
		"doc":     `did you mean "doctor"?`,
		"xyzzy42": "",
	} {
		var out, errb bytes.Buffer
		if code := mainCode([]string{in}, &out, &errb); code != exitUsage {
			t.Fatalf("%s: exit %d", in, code)
		}
		first := strings.SplitN(errb.String(), "\n", 2)[0]
		if want == "" {
			if strings.Contains(first, "did you mean") {
				t.Errorf("%s: %q suggests something", in, first)
			}
		} else if !strings.Contains(first, want) {
			t.Errorf("%s: %q, want %q", in, first, want)
		}
	}
}
