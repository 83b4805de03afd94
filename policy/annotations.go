package policy

import (
	"fmt"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
)

// RuleDoc is what a rule's OPA METADATA annotation says about it: the
// description of a rule ID for SARIF and docs/rules.md. Built-in rules
// and organisation rules are read by the same code (docOf).
type RuleDoc struct {
	// ID is custom.id, the rule ID the annotated rule reports ("" for
	// an organisation rule: its package names it).
	ID string
	// Name is custom.name, a short PascalCase name.
	Name string
	// Title is one sentence: what the rule finds.
	Title string
	// Description says why it matters and how to fix it.
	Description string
	// HelpURI is the first related resource, "" when none.
	HelpURI string
	// Level is custom.level (or custom.severity): "error", "warning" or
	// "" when not given.
	Level string
	// Security is custom.security.
	Security bool
	// File and Row are where the annotation is.
	File string
	Row  int
}

// docOf reads one annotation.
func docOf(a *ast.Annotations) RuleDoc {
	d := RuleDoc{Title: strings.TrimSpace(a.Title), Description: strings.TrimSpace(a.Description)}
	if len(a.RelatedResources) > 0 && a.RelatedResources[0].Ref.String() != "" {
		d.HelpURI = a.RelatedResources[0].Ref.String()
	}
	d.ID, _ = a.Custom["id"].(string)
	d.Name, _ = a.Custom["name"].(string)
	if d.Level, _ = a.Custom["level"].(string); d.Level == "" {
		d.Level, _ = a.Custom["severity"].(string)
	}
	d.Security, _ = a.Custom["security"].(bool)
	if a.Location != nil {
		d.File, d.Row = a.Location.File, a.Location.Row
	}
	return d
}

// ModuleDoc parses the rule file name and returns its package (without
// "data.") and the annotation that describes it as a whole: the
// package's, else that of the first annotated deny or warn rule; nil
// when it has none.
func ModuleDoc(name, src string) (string, *RuleDoc, error) {
	m, err := ast.ParseModuleWithOpts(name, src, ast.ParserOptions{ProcessAnnotation: true})
	if err != nil {
		return "", nil, err
	}
	if m == nil {
		return "", nil, fmt.Errorf("%s: empty module", name)
	}
	pkg := strings.TrimPrefix(m.Package.Path.String(), "data.")
	var rule *ast.Annotations
	for _, a := range m.Annotations {
		switch a.Scope {
		case "package", "subpackages":
			d := docOf(a)
			return pkg, &d, nil
		case "rule", "document":
			if rule == nil && isDecision(a) {
				rule = a
			}
		}
	}
	if rule == nil {
		return pkg, nil, nil
	}
	d := docOf(rule)
	return pkg, &d, nil
}

// isDecision reports whether a annotates a deny or warn rule.
func isDecision(a *ast.Annotations) bool {
	p, err := a.GetTargetPath().Ptr()
	return err == nil && (strings.HasSuffix(p, "/deny") || strings.HasSuffix(p, "/warn"))
}

// BuiltinRuleDocs returns the description of every rule ID a built-in
// Rego rule documents: the METADATA annotations of deny and warn rules
// that carry custom.id, sorted by ID. Each ID is annotated once, with a
// title, a description, a name and a level.
func BuiltinRuleDocs() ([]RuleDoc, error) { return ruleDocs(BuiltinModules(false)) }

// ruleDocs reads the custom.id annotations of mods (name → source).
func ruleDocs(mods map[string]string) ([]RuleDoc, error) {
	names := make([]string, 0, len(mods))
	for n := range mods {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []RuleDoc
	seen := map[string]RuleDoc{}
	for _, n := range names {
		m, err := ast.ParseModuleWithOpts(n, mods[n], ast.ParserOptions{ProcessAnnotation: true})
		if err != nil {
			return nil, err
		}
		for _, a := range m.Annotations {
			d := docOf(a)
			if d.ID == "" {
				continue
			}
			switch prev, dup := seen[d.ID]; {
			case dup:
				return nil, fmt.Errorf("%s:%d: rule %s is already annotated at %s:%d", d.File, d.Row, d.ID, prev.File, prev.Row)
			case !isDecision(a):
				return nil, fmt.Errorf("%s:%d: the annotation of rule %s is not on a deny or warn rule", d.File, d.Row, d.ID)
			case d.Title == "" || d.Description == "" || d.Name == "" || (d.Level != "error" && d.Level != "warning"):
				return nil, fmt.Errorf("%s:%d: the annotation of rule %s needs a title, a description, custom.name and custom.level (error or warning)", d.File, d.Row, d.ID)
			}
			seen[d.ID] = d
			out = append(out, d)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}
