package seccomp

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// TestDisassemblyGolden pins the whole program, instruction by
// instruction, so that any change to the filter shows up in review.
func TestDisassemblyGolden(t *testing.T) {
	for _, arch := range Arches() {
		lines, err := Disassemble(mustBuild(t, arch).Bytes)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(lines, "\n") + "\n"
		path := filepath.Join("testdata", arch+".golden")
		if *update {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -update to create it)", err)
		}
		if got != string(want) {
			t.Errorf("%s disassembly differs from %s (go test -update rewrites it):\n%s", arch, path, got)
		}
	}
}

func TestDisassembleErrors(t *testing.T) {
	for _, n := range []int{0, 7, 9} {
		if _, err := Disassemble(make([]byte, n)); err == nil {
			t.Errorf("%d bytes accepted", n)
		}
	}
	lines, err := Disassemble([]byte{0x07, 0, 1, 2, 3, 0, 0, 0, 0x06, 0, 0, 0, 0x05, 0, 0x05, 0})
	if err != nil || len(lines) != 2 || !strings.Contains(lines[0], "op 0x0007") || !strings.Contains(lines[1], "ERRNO(5)") {
		t.Errorf("got %q, %v", lines, err)
	}
}
