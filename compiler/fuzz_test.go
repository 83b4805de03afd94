package compiler

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bwpolicy/bwpolicy/internal/testglob"

	"golang.org/x/tools/txtar"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/verify"
)

// FuzzCompile feeds arbitrary bytes as a settings file to the whole
// pipeline over the synthetic host of a case: it must never panic, every
// diagnostic must carry a rule and a file, and a compiled invocation must
// satisfy the invariants the runtime relies on.
// slowCompile is how long one fuzz input may take to compile: settings
// files are bounded (settings/bounds.go) so that any input finishes in
// well under two seconds.
const slowCompile = 10 * time.Second

func FuzzCompile(f *testing.F) {
	files := testglob.Files(f, "testdata/cases/*.txtar")
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
	// Impossible paths and numbers (refused at the schema stage), a BOM,
	// and small versions of the hostile files of internal/hostile.
	f.Add([]byte("binds:\n  - src: \"/usr\\0x\"\n"))
	f.Add([]byte("hide: [\"a\\0\"]\ncwd: \"/home/u/p\\0q\"\n"))
	f.Add([]byte("cwd: /home/u/" + strings.Repeat("n", 256) + "\n"))
	f.Add([]byte("binds: [{src: /" + strings.Repeat("d/", 2100) + "}]\n"))
	f.Add([]byte("binds: [{src: /usr, dest: /opt/" + strings.Repeat("n", 300) + "}]\n"))
	f.Add([]byte("memory_mb: .inf\ncpu_seconds: -.inf\nmax_procs: .nan\n"))
	f.Add([]byte("memory_mb: 1e400\ncpu_seconds: 1e3\n"))
	f.Add([]byte("\xef\xbb\xbfprofile: workspace\n"))
	f.Add([]byte("a: &a [x, x]\nb: &b [*a, *a]\nhide: *b\n"))
	f.Add([]byte(strings.Repeat("[", 100)))
	base := filepath.Join("testdata", "cases", "R7_cwd_home.txtar")
	if _, err := os.Stat(base); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tc := loadCase(t, base)
		tc.req.Source = data
		tc.req.File = "fuzz.yaml"
		// A slow input must not pass as a hung worker (the fuzzer then
		// only reports "context deadline exceeded", without the input):
		// crash the worker, so that the input is saved.
		watchdog := time.AfterFunc(slowCompile, func() {
			panic(fmt.Sprintf("Compile took over %v on input %q", slowCompile, data))
		})
		defer watchdog.Stop()
		res := Compile(context.Background(), tc.req)
		for _, d := range res.Diags {
			if d.Rule == "" || (d.Pos.File == "" && d.Pos.Flag == "") || d.Summary == "" {
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
		// Whatever compiles verifies, and the runtime's strict decoder
		// reads it back.
		if vs := verify.Check(res.Invocation); len(vs) > 0 {
			t.Fatalf("input %q compiled into an invocation that does not verify:\n%s", data, verify.Summary(vs))
		}
		if _, err := invocation.Decode(js); err != nil {
			t.Fatalf("input %q compiled into an invocation the runtime refuses: %v", data, err)
		}
	})
}
