package compiler

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/internal/goldentest"
	"github.com/bwpolicy/bwpolicy/internal/testglob"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/bwpolicy/bwpolicy/internal/schematest"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/schema"
	"github.com/bwpolicy/bwpolicy/verify"
)

// TestGoldenInvocationsMatchSchema validates every golden invocation
// against schema/invocation.schema.json.
func TestGoldenInvocationsMatchSchema(t *testing.T) {
	sch := schematest.Compile(t, schema.InvocationJSON, "invocation.schema.json")
	files := testglob.Files(t, filepath.Join(goldentest.Dir(t), "*.json"))
	if len(files) < 10 {
		t.Fatalf("only %d golden invocations", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		// The runtime's strict decoder must accept it too (an invocation
		// compiled without bwrap is refused by the runtime: S10).
		if _, err := invocation.Decode(data); err != nil && !strings.Contains(f, "no_bwrap") {
			t.Errorf("%s: runtime.Decode: %v", f, err)
		}
	}
}

// TestInvocationInvariants checks, for every case, properties no single
// golden file states: compiling twice gives the same bytes; the explain
// groups are exactly the arguments, in order; every fd an argument names
// is declared; masks come after every broad mount they could be covered by.
func TestInvocationInvariants(t *testing.T) {
	for _, file := range caseFiles(t) {
		tc := loadCase(t, file)
		t.Run(tc.name, func(t *testing.T) {
			a := Compile(context.Background(), tc.req)
			b := Compile(context.Background(), tc.req)
			if a.Invocation == nil {
				if b.Invocation != nil {
					t.Fatal("refused once, compiled once")
				}
				return
			}
			ja, _ := Marshal(a.Invocation)
			jb, _ := Marshal(b.Invocation)
			if !bytes.Equal(ja, jb) {
				t.Fatal("same inputs gave different bytes")
			}
			inv := a.Invocation
			var concat []string
			for _, e := range inv.Explain {
				concat = append(concat, e.Args...)
			}
			if !reflect.DeepEqual(concat, inv.Bwrap.Args) {
				t.Fatalf("explain groups differ from args:\n%q\n%q", concat, inv.Bwrap.Args)
			}
			declared := map[string]bool{}
			for _, fd := range inv.FDs {
				declared[itoa(fd.Num)] = true
			}
			for i, arg := range inv.Bwrap.Args {
				switch arg {
				case "--ro-bind-data", "--info-fd", "--block-fd", "--json-status-fd", "--seccomp":
					if !declared[inv.Bwrap.Args[i+1]] {
						t.Errorf("%s %s: fd not declared", arg, inv.Bwrap.Args[i+1])
					}
				}
			}
			checkMaskOrder(t, inv)
			for _, v := range verify.Check(inv) {
				t.Errorf("verify: %s", v)
			}
			for _, name := range []string{"SSH_AUTH_SOCK", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS"} {
				if !slices.Contains(inv.Env.Unset, name) || !slices.Contains(inv.Env.UnsetAfterRC, name) {
					t.Errorf("S4: %s must be in env.unset and env.unset_after_rc: %+v", name, inv.Env)
				}
			}
		})
	}
}

// checkMaskOrder: no mount after a mask may land at or above the masked
// path, except the exceptions bound back inside it and its own remount.
func checkMaskOrder(t *testing.T, inv *invocation.Invocation) {
	hidden := map[string]int{}
	for i, e := range inv.Explain {
		if len(e.Args) == 0 {
			continue
		}
		dest := e.Args[len(e.Args)-1]
		if e.Rule == "S5" || e.Rule == "R11" || e.Rule == "H4" {
			hidden[dest] = i
			continue
		}
		for h, at := range hidden {
			if i <= at || !strings.HasPrefix(e.Args[0], "--") || e.Args[0] == "--remount-ro" || e.Args[0] == "--chdir" {
				continue
			}
			if dest == h || strings.HasPrefix(h, dest+"/") {
				t.Errorf("group %d %q covers the mask of %s (group %d)", i, e.Args, h, at)
			}
		}
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
