package main

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/internal/docblock"
)

// TestCLIDoc: docs/cli.md shows bwpolicy's --help and every command's,
// as the binary prints them (BWPOLICY_UPDATE_DOCS=1 rewrites the block).
func TestCLIDoc(t *testing.T) {
	var b strings.Builder
	help := func(title string, args ...string) {
		var out, errb bytes.Buffer
		if code := mainCode(args, &out, &errb); code != 0 || errb.Len() != 0 {
			t.Fatalf("bwpolicy %s: exit %d, stderr %q", strings.Join(args, " "), code, errb.String())
		}
		b.WriteString("### " + title + "\n\n```\n" + out.String() + "```\n\n")
	}
	help("bwpolicy", "--help")
	for _, n := range slices.Sorted(maps.Keys(commands)) {
		help("bwpolicy "+n, n, "--help")
	}
	docblock.Sync(t, "../../docs/cli.md", "bwpolicy help", b.String(),
		"BWPOLICY_UPDATE_DOCS=1 go test ./cmd/bwpolicy -run TestCLIDoc")
}
