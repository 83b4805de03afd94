package main

import (
	"bytes"
	"testing"

	"github.com/bwpolicy/bwpolicy/internal/docblock"
)

// TestCLIDoc: docs/cli.md shows bwrun's --help as the binary prints it
// (BWPOLICY_UPDATE_DOCS=1 rewrites the block).
func TestCLIDoc(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"--help"}, &out, &errb); code != 0 || errb.Len() != 0 {
		t.Fatalf("bwrun --help: exit %d, stderr %q", code, errb.String())
	}
	docblock.Sync(t, "../../docs/cli.md", "bwrun help", "```\n"+out.String()+"```\n",
		"BWPOLICY_UPDATE_DOCS=1 go test ./cmd/bwrun -run TestCLIDoc")
}
