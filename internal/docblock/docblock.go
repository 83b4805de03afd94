// Package docblock keeps a generated block of a Markdown page equal to
// what a test generates: the block lies between the lines
// "<!-- BEGIN NAME -->" and "<!-- END NAME -->", and a test either
// compares it (the default) or rewrites it (BWPOLICY_UPDATE_DOCS=1).
// docs/cli.md's command-line help is such a block.
package docblock

import (
	"bytes"
	"fmt"
	"os"
	"testing"
)

// UpdateVar is the environment variable that makes Sync rewrite a block
// instead of comparing it.
const UpdateVar = "BWPOLICY_UPDATE_DOCS"

// Replace returns page with the block NAME's content replaced by body
// (which ends with a newline), or an error when the page does not hold
// exactly one such block.
func Replace(page []byte, name, body string) ([]byte, error) {
	begin := []byte("<!-- BEGIN " + name + " -->\n")
	end := []byte("<!-- END " + name + " -->")
	if bytes.Count(page, begin) != 1 || bytes.Count(page, end) != 1 {
		return nil, fmt.Errorf("want exactly one %q line and one %q line", bytes.TrimSpace(begin), end)
	}
	i := bytes.Index(page, begin) + len(begin)
	j := bytes.Index(page, end)
	if j < i {
		return nil, fmt.Errorf("%q comes before %q", end, bytes.TrimSpace(begin))
	}
	out := make([]byte, 0, len(page)-(j-i)+len(body))
	out = append(out, page[:i]...)
	out = append(out, body...)
	return append(out, page[j:]...), nil
}

// Sync holds the block NAME of the page at path equal to body: with
// BWPOLICY_UPDATE_DOCS=1 it rewrites the page, otherwise it fails t when
// the block differs, naming the command (regen) that updates it.
func Sync(t testing.TB, path, name, body, regen string) {
	t.Helper()
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Replace(page, name, body)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if bytes.Equal(page, want) {
		return
	}
	if os.Getenv(UpdateVar) == "1" {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the block %s is out of date: %s", path, name, regen)
}
