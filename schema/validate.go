package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/bwpolicy/bwpolicy/diag"
)

var (
	settingsOnce   sync.Once
	settingsSchema *jsonschema.Schema
	settingsErr    error
	printer        = message.NewPrinter(language.English)
)

func compiled() (*jsonschema.Schema, error) {
	settingsOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(SettingsJSON))
		if err != nil {
			settingsErr = err
			return
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource(SettingsID, doc); err != nil {
			settingsErr = err
			return
		}
		settingsSchema, settingsErr = c.Compile(SettingsID)
	})
	return settingsSchema, settingsErr
}

// Located is what Validate needs of a settings document: its values and
// a way to turn a key path into a source position.
type Located interface {
	Pos(path []any) diag.Pos
	KeyPos(path []any) diag.Pos
}

// Validate checks values (JSON-like data, as settings.Document.Values)
// against settings.schema.json and returns one positioned diagnostic per
// problem, all of them.
func Validate(values map[string]any, at Located) diag.List {
	sch, err := compiled()
	if err != nil {
		return diag.List{{Severity: diag.Error, Rule: "internal", Summary: "settings schema: " + err.Error()}}
	}
	if nf := numberDiags(values, nil, at); len(nf) > 0 {
		nf.Sort()
		return nf
	}
	inst, err := toJSONValue(values)
	if err != nil {
		return diag.List{{Severity: diag.Error, Rule: "schema", Pos: at.Pos(nil), Summary: err.Error()}}
	}
	paths := pathDiags(values, at)
	err = sch.Validate(inst)
	if err == nil {
		paths.Sort()
		return paths
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return diag.List{{Severity: diag.Error, Rule: "schema", Summary: err.Error()}}
	}
	out := paths
	for _, leaf := range leaves(ve) {
		out = append(out, leafDiags(leaf, inst, at)...)
	}
	out.Sort()
	return out
}

// toJSONValue round-trips values through JSON so numbers arrive as
// json.Number, the way the validator expects them.
func toJSONValue(values map[string]any) (any, error) {
	b, err := json.Marshal(values)
	if err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

func leaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	for _, c := range e.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

func leafDiags(e *jsonschema.ValidationError, inst any, at Located) diag.List {
	path, _ := keyPath(e.InstanceLocation, inst)
	if ap, ok := e.ErrorKind.(*kind.AdditionalProperties); ok {
		// Point at each unknown key, not at the object holding it.
		props := append([]string(nil), ap.Properties...)
		sort.Strings(props)
		var out diag.List
		for _, p := range props {
			name, where := p, "the settings"
			if len(p) > 7 && p[:7] == "plugin:" {
				name = p[7:]
				where = "the bubblewrap settings (it belongs under terminal:)"
			}
			kp := append(append([]any(nil), path...), p)
			out = append(out, diag.Diagnostic{
				Severity: diag.Error, Rule: "schema", Pos: at.KeyPos(kp), Path: pathString(append(append([]any(nil), path...), name)),
				Summary: fmt.Sprintf("unknown key %q in %s", name, where) + suggestKey(p, path),
			})
		}
		return out
	}
	return diag.List{{
		Severity: diag.Error, Rule: "schema", Pos: at.Pos(path), Path: pathString(path),
		Summary: summary(e, inst),
	}}
}

// keyPath turns a JSON pointer's tokens into keys and indexes, and
// returns the value there (nil when the pointer leaves inst).
func keyPath(tokens []string, inst any) ([]any, any) {
	out := make([]any, 0, len(tokens))
	cur := inst
	for _, t := range tokens {
		switch c := cur.(type) {
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(c) {
				return append(out, t), nil
			}
			out = append(out, i)
			cur = c[i]
		case map[string]any:
			out = append(out, t)
			cur = c[t]
		default:
			return append(out, t), nil
		}
	}
	return out, cur
}

func pathString(path []any) string {
	var b bytes.Buffer
	for _, p := range path {
		if i, ok := p.(int); ok {
			fmt.Fprintf(&b, "[%d]", i)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		fmt.Fprint(&b, p)
	}
	return b.String()
}

// summary says what is wrong in words; a number out of range is quoted
// as written (1e400), not in the validator's notation.
func summary(e *jsonschema.ValidationError, inst any) string {
	got := func() string {
		_, v := keyPath(e.InstanceLocation, inst)
		if n, ok := v.(json.Number); ok {
			return diag.Clip(string(n))
		}
		return fmt.Sprint(v)
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Maximum:
		return fmt.Sprintf("must be at most %s, got %s", k.Want.RatString(), got())
	case *kind.Pattern:
		return fmt.Sprintf("%s does not match the pattern %s", diag.Quote(k.Got), k.Want)
	case *kind.Minimum:
		return fmt.Sprintf("must be at least %s, got %s", k.Want.RatString(), got())
	}
	return diag.Clip(e.ErrorKind.LocalizedString(printer))
}
