package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/internal/goldentest"
	"github.com/bwpolicy/bwpolicy/internal/testglob"

	"golang.org/x/tools/txtar"
)

// rulesDocFile is the page BuiltinRules' HelpURIs point at.
const rulesDocFile = "../docs/rules.md"

// TestRulesDoc keeps docs/rules.md (the target of every rule's SARIF
// helpUri) generated from the catalogue: one section per rule ID, its
// anchor the lower-case ID, with what it catches, the fix and, where the
// golden cases have one, an example with its output. Regenerate with
// BWPOLICY_UPDATE_DOCS=1 go test ./report -run TestRulesDoc.
func TestRulesDoc(t *testing.T) {
	got := rulesDoc(t)
	if os.Getenv("BWPOLICY_UPDATE_DOCS") != "" {
		if err := os.WriteFile(rulesDocFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(rulesDocFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("docs/rules.md is out of date: BWPOLICY_UPDATE_DOCS=1 go test ./report -run TestRulesDoc")
	}
}

func rulesDoc(t *testing.T) []byte {
	t.Helper()
	cases := testglob.Files(t, "../compiler/testdata/cases/*.txtar")
	sort.Strings(cases)
	var b bytes.Buffer
	b.WriteString("# Rule IDs\n\n")
	b.WriteString("Every diagnostic of bwpolicy names a rule ID in brackets (`[R3]`), and\n")
	b.WriteString("every SARIF rule links here (`helpUri`). The safety rules are R1–R13, the\n")
	b.WriteString("properties every sandbox has S1–S11, the extensions H1–H10; the last IDs\n")
	b.WriteString("are the pipeline's own stages. Organisation rules (`custom.*`) are\n")
	b.WriteString("documented by the organisation that writes them.\n\n")
	b.WriteString("This page is generated from the METADATA annotations of the built-in\n")
	b.WriteString("Rego rules (`policy/*.rego`), `report/rules.go` (the IDs no Rego rule\n")
	b.WriteString("reports), the golden cases (`compiler/testdata/cases`, output in\n")
	b.WriteString("`golden/`) and the command-line examples of `report/examples.go` (run\n")
	b.WriteString("by `go test ./cmd/bwpolicy -run TestRuleExamples`) by\n")
	b.WriteString("`go test ./report -run TestRulesDoc`.\n")
	for _, ru := range BuiltinRules() {
		fmt.Fprintf(&b, "\n## %s\n\n", ru.ID)
		kind := "error"
		if ru.Level == w {
			kind = "warning"
		}
		if ru.Security {
			kind += ", security"
		}
		fmt.Fprintf(&b, "**%s** (%s)\n\n", ru.Name, kind)
		fmt.Fprintf(&b, "What it catches: %s\n\n", sentence(ru.Short))
		fmt.Fprintf(&b, "Why and the fix: %s\n", sentence(ru.Help))
		if ex, ok := ruleExample(t, cases, ru.ID); ok {
			b.WriteString(ex)
		} else if ex, ok := explainExample(t, cases, ru.ID); ok {
			b.WriteString(ex)
		} else if ex, ok := cliExample(t, ru.ID); ok {
			b.WriteString(ex)
		} else {
			t.Errorf("rule %s has no example for docs/rules.md: add a golden case (compiler/testdata/cases/%s_*.txtar) or a report.CLIExamples entry", ru.ID, ru.ID)
		}
	}
	return b.Bytes()
}

// ruleExample is the example of rule id: the first golden case named
// ID_* with diagnostics, else the first other case whose diagnostics
// report [ID]; the settings and the diagnostics of that case.
func ruleExample(t *testing.T, cases []string, id string) (string, bool) {
	t.Helper()
	named := func(c string) bool {
		return strings.HasPrefix(strings.TrimSuffix(filepath.Base(c), ".txtar"), id+"_")
	}
	for _, byName := range []bool{true, false} {
		for _, c := range cases {
			if named(c) != byName {
				continue
			}
			name := strings.TrimSuffix(filepath.Base(c), ".txtar")
			diags, err := os.ReadFile(filepath.Join("..", "golden", name+".diags.txt"))
			if err != nil || len(bytes.TrimSpace(diags)) == 0 || (!byName && !bytes.Contains(diags, []byte("["+id+"]"))) {
				continue
			}
			ar, err := txtar.ParseFile(c)
			if err != nil {
				t.Fatal(err)
			}
			var settings, host []byte
			for _, f := range ar.Files {
				switch f.Name {
				case "settings.yaml":
					settings = f.Data
				case "host":
					host = f.Data
				}
			}
			head := fmt.Sprintf("\nExample (`compiler/testdata/cases/%s.txtar`): %s\n\n", name, strings.TrimSpace(string(ar.Comment)))
			switch {
			case settings != nil:
				head += fmt.Sprintf("```yaml\n%s```\n\n", settings)
			case len(bytes.TrimSpace(host)) > 0:
				head += fmt.Sprintf("The embedded defaults, on a host with (the test's notation):\n\n```\n%s```\n\n", host)
			default:
				head += "The embedded defaults:\n\n"
			}
			return head + fmt.Sprintf("```\n%s```\n", diags), true
		}
	}
	return "", false
}

// explainExample is, for a property every sandbox gets (which no
// diagnostic reports), the first line of a golden case's explained plan
// that names [ID] or (ID…), with the "why:" line that follows it.
func explainExample(t *testing.T, cases []string, id string) (string, bool) {
	for _, c := range cases {
		name := strings.TrimSuffix(filepath.Base(c), ".txtar")
		plan, err := os.ReadFile(filepath.Join(goldentest.Dir(t), name+".explain.txt"))
		if err != nil {
			continue
		}
		lines := strings.Split(string(plan), "\n")
		for i, l := range lines {
			if !strings.Contains(l, "["+id+"]") && !strings.Contains(l, "("+id+",") && !strings.Contains(l, "("+id+";") && !strings.Contains(l, "("+id+")") {
				continue
			}
			shown := l
			if i+1 < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i+1]), "why:") {
				shown += "\n" + lines[i+1]
			}
			return fmt.Sprintf("\nNot a finding: every sandbox gets it. In the plan `bwpolicy compile --explain` prints (the golden case `compiler/testdata/cases/%s.txtar`):\n\n```\n%s\n```\n", name, shown), true
		}
	}
	return "", false
}

// cliExample renders the CLIExamples entry of id: the files, the command
// line, and its output.
func cliExample(t *testing.T, id string) (string, bool) {
	for _, ex := range CLIExamples {
		if ex.ID != id {
			continue
		}
		var b strings.Builder
		b.WriteString("\nExample (run by `go test ./cmd/bwpolicy -run TestRuleExamples`):\n\n")
		switch ex.Fault {
		case "":
		case FaultHostWithoutFS:
			b.WriteString("No input provokes it: it is a bug. The test makes one on purpose, running check in-process on a model of the host without a file system, so that compiling panics; check reports the panic as a failure of the run (exit 2), never as a finding about the file:\n\n")
		default:
			t.Errorf("example of %s: unknown fault %q", id, ex.Fault)
		}
		names := make([]string, 0, len(ex.Files))
		for n := range ex.Files {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if ex.Files[n] == "<fifo>" {
				fmt.Fprintf(&b, "`%s` is a named pipe (`mkfifo %s`).\n\n", n, n)
				continue
			}
			fmt.Fprintf(&b, "`%s`:\n\n```\n%s```\n\n", n, ex.Files[n])
		}
		if e := ex.Edit; e != nil {
			fmt.Fprintf(&b, "`%s` is `%s` with %s: its lines\n\n```\n%s```\n\nbecome\n\n```\n%s```\n\n", e.File, e.From, e.Why, e.Old, e.New)
		}
		fmt.Fprintf(&b, "```\n$ bwpolicy %s\n%s%s$ echo $?\n%d\n```\n", strings.Join(ex.Args, " "), ex.Stdout, ex.Stderr, ex.Exit)
		return b.String(), true
	}
	return "", false
}
