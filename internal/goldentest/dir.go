package goldentest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// DiffSuffix ends the name of a case's diff against its base: NAME.json
// is written NAME.json.diff, NAME.explain.txt NAME.explain.txt.diff.
const DiffSuffix = ".diff"

// BasePrefix starts the names of the base cases: one per profile
// (profile_network, profile_workspace, ...), kept in full.
const BasePrefix = "profile_"

// Header is the first line of a diff file: "base NAME" names the base
// (golden/NAME.json or NAME.explain.txt) it applies to.
func Header(base string) string { return "base " + base + "\n" }

// Source is the committed golden directory (the module's golden/),
// found from the test's working directory.
func Source(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "golden")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("goldentest: no go.mod above the working directory")
		}
		dir = parent
	}
}

var (
	dirOnce sync.Once
	dirPath string
	dirErr  error
)

// Dir returns a directory holding every golden file in full: the bases
// and diagnostics as committed, each case's invocation and explanation
// rebuilt from its diff. It is built once per test process, under the
// temporary directory and named by the golden files' digest (a second
// run reuses it). A diff that does not apply fails the test.
func Dir(t testing.TB) string {
	t.Helper()
	src := Source(t)
	dirOnce.Do(func() { dirPath, dirErr = build(src) })
	if dirErr != nil {
		t.Fatalf("goldentest: %v", dirErr)
	}
	return dirPath
}

func build(src string) (string, error) {
	ents, err := os.ReadDir(src)
	if err != nil {
		return "", err
	}
	files := map[string][]byte{}
	var names []string
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return "", err
		}
		files[e.Name()] = b
		names = append(names, e.Name())
	}
	if len(names) == 0 {
		return "", errors.New("no golden file in " + src)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(files[n]))
		h.Write(files[n])
	}
	out := filepath.Join(os.TempDir(), "bwpolicy-golden-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(filepath.Join(out, ".complete")); err == nil {
		return out, nil
	}
	tmp, err := os.MkdirTemp(os.TempDir(), "bwpolicy-golden-build-")
	if err != nil {
		return "", err
	}
	for _, n := range names {
		name, data := n, files[n]
		if base, ok := strings.CutSuffix(n, DiffSuffix); ok {
			name = base
			data, err = Rebuild(files, n)
			if err != nil {
				os.RemoveAll(tmp)
				return "", fmt.Errorf("%s: %v", n, err)
			}
		}
		if err := os.WriteFile(filepath.Join(tmp, name), data, 0o644); err != nil {
			return "", err
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, ".complete"), nil, 0o644); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, out); err != nil {
		os.RemoveAll(tmp)
		if _, serr := os.Stat(filepath.Join(out, ".complete")); serr == nil {
			return out, nil // another test process built it
		}
		return "", err
	}
	return out, nil
}

// Rebuild returns the file the diff file name (NAME.json.diff, in files
// by name) stands for: its base (named by its header, with the same
// extension) with the diff applied.
func Rebuild(files map[string][]byte, name string) ([]byte, error) {
	body := string(files[name])
	head, rest, _ := strings.Cut(body, "\n")
	base, ok := strings.CutPrefix(head, "base ")
	if !ok {
		return nil, fmt.Errorf("no %q header", "base NAME")
	}
	full := strings.TrimSuffix(name, DiffSuffix)
	ext := full[strings.Index(full, "."):] // .json, .explain.txt
	b, ok := files[base+ext]
	if !ok {
		return nil, fmt.Errorf("base %s%s is missing", base, ext)
	}
	s, err := Apply(Layout(ext, b), rest)
	return []byte(s), err
}

// Layout is the text a diff of a file with extension ext is taken on:
// an invocation (.json) with every value on a line of its own
// (json.Indent), so that a case's diff names the values that differ
// and a value added to every invocation (a variable of env.checked)
// changes no case's diff; anything else as it is. A rebuilt invocation
// has this layout: the same invocation to its readers.
func Layout(ext string, data []byte) string {
	if ext != ".json" {
		return string(data)
	}
	var b bytes.Buffer
	if err := json.Indent(&b, data, "", " "); err != nil {
		return string(data) // not JSON: diffed as text
	}
	b.WriteByte('\n')
	return b.String()
}
