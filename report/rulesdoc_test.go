package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

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
	cases, _ := filepath.Glob("../compiler/testdata/cases/*.txtar")
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
	b.WriteString("reports) and the golden cases (`compiler/testdata/cases`, output in\n")
	b.WriteString("`golden/`) by `go test ./report -run TestRulesDoc`.\n")
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
		for _, c := range cases {
			name := strings.TrimSuffix(filepath.Base(c), ".txtar")
			if !strings.HasPrefix(name, ru.ID+"_") {
				continue
			}
			ar, err := txtar.ParseFile(c)
			if err != nil {
				t.Fatal(err)
			}
			diags, err := os.ReadFile(filepath.Join("..", "golden", name+".diags.txt"))
			if err != nil || len(bytes.TrimSpace(diags)) == 0 {
				continue
			}
			for _, f := range ar.Files {
				if f.Name != "settings.yaml" {
					continue
				}
				fmt.Fprintf(&b, "\nExample (`compiler/testdata/cases/%s.txtar`): %s\n\n", name, strings.TrimSpace(string(ar.Comment)))
				fmt.Fprintf(&b, "```yaml\n%s```\n\n```\n%s```\n", f.Data, diags)
			}
			break
		}
	}
	return b.Bytes()
}
