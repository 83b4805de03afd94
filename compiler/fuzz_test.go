package compiler

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// FuzzCompile feeds arbitrary bytes as a settings file to the whole
// pipeline over the synthetic host of a case: it must never panic, every
// diagnostic must carry a rule and a file, and a compiled invocation must
// satisfy the invariants the runtime relies on.
func FuzzCompile(f *testing.F) {
	files, _ := filepath.Glob("testdata/cases/*.txtar")
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, s := range ar.Files {
			if s.Name == "settings.yaml" {
				f.Add(s.Data)
			}
		}
	}
	f.Add([]byte("binds: [{src: /home/u, dest: /home/u/x}]\n"))
	f.Add([]byte("{{{"))
	f.Add([]byte("\x00\xff"))
	base := filepath.Join("testdata", "cases", "R7_cwd_home.txtar")
	if _, err := os.Stat(base); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tc := loadCase(t, base)
		tc.req.Source = data
		tc.req.File = "fuzz.yaml"
		res := Compile(context.Background(), tc.req)
		for _, d := range res.Diags {
			if d.Rule == "" || d.Pos.File == "" || d.Summary == "" {
				t.Fatalf("diagnostic without rule, file or message: %+v", d)
			}
			if d.Rule == "internal" {
				t.Fatalf("internal error on input %q: %s", data, d.Summary)
			}
		}
		if res.Invocation == nil {
			if !res.Diags.HasErrors() {
				t.Fatal("no invocation and no error")
			}
			return
		}
		js, err := Marshal(res.Invocation)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(js), `"--ro-bind",`) {
			t.Fatal("no read-only root")
		}
		checkMaskOrder(t, res.Invocation)
	})
}
