package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// Form says which kind of file a Document came from.
type Form string

const (
	// FormHermes is a Hermes config.yaml: settings live under
	// plugins.entries.bubblewrap.settings, terminal.* keys beside them.
	FormHermes Form = "hermes"
	// FormStandalone is a file with the settings keys at the top level.
	FormStandalone Form = "standalone"
	// FormDefaults is the embedded defaults (no file).
	FormDefaults Form = "defaults"
)

// terminalKeys are the terminal.* keys of a Hermes config that bwpolicy
// reads, keyed by their settings name.
var terminalKeys = map[string]string{
	"cwd":           "cwd",
	"home_mode":     "home_mode",
	"degraded_mode": "degraded_mode",
	"sandbox_dir":   "sandbox_dir",
}

// Document is one parsed settings file.
type Document struct {
	// File is the name diagnostics use.
	File string
	Form Form
	// Values is the settings as plain JSON-like data (map[string]any,
	// []any, string, json.Number, bool, nil), in the standalone shape
	// whatever the form: the object the JSON Schema validates.
	Values map[string]any
	// Source is the file's bytes, for snippets.
	Source []byte

	ast *ast.File
	// settingsPath is where a Hermes config's settings were read from
	// (one of settingsSources); legacy marks the PR-era keys.
	settingsPath []string
	legacy       bool
}

// Pos returns the position of the value at the settings key path (keys
// and indexes, as in a Rego violation), or of its nearest existing
// ancestor.
func (d *Document) Pos(path []any) diag.Pos {
	pos := diag.Pos{File: d.File}
	if d.ast == nil {
		return pos
	}
	yamlPath := d.yamlPath(path)
	for n := len(yamlPath); n >= 0; n-- {
		if node := d.lookup(yamlPath[:n]); node != nil {
			tk := node.GetToken()
			if tk != nil && tk.Position != nil {
				pos.Line, pos.Col = tk.Position.Line, tk.Position.Column
			}
			return pos
		}
	}
	return pos
}

// Has reports whether the settings set the top-level key (in whichever
// place the file's form reads it from): false means its value is a
// default, the profile's or bwpolicy's.
func (d *Document) Has(key string) bool {
	_, ok := d.Values[key]
	return ok
}

// FilePos is the position of the file as a whole: its line 1, or no
// line for the embedded defaults, which are no file.
func (d *Document) FilePos() diag.Pos {
	if d.ast == nil {
		return diag.Pos{File: d.File}
	}
	return diag.Pos{File: d.File, Line: 1}
}

// KeyPos returns the position of the key (not its value) that ends path,
// for diagnostics about the key itself (an unknown key); else Pos(path).
func (d *Document) KeyPos(path []any) diag.Pos {
	if p, ok := d.keyPos(d.yamlPath(path)); ok {
		return p
	}
	return d.Pos(path)
}

func (d *Document) keyPos(yamlPath []any) (diag.Pos, bool) {
	if d.ast == nil || len(yamlPath) == 0 {
		return diag.Pos{}, false
	}
	key, ok := yamlPath[len(yamlPath)-1].(string)
	if !ok {
		return diag.Pos{}, false
	}
	var parent ast.Node
	if len(yamlPath) == 1 && len(d.ast.Docs) == 1 {
		parent = d.ast.Docs[0].Body
	} else {
		parent = d.lookup(yamlPath[:len(yamlPath)-1])
	}
	var values []*ast.MappingValueNode
	switch m := parent.(type) {
	case *ast.MappingNode:
		values = m.Values
	case *ast.MappingValueNode:
		values = []*ast.MappingValueNode{m}
	}
	for _, mv := range values {
		if mv.Key == nil || mv.Key.GetToken() == nil {
			continue
		}
		if tk := mv.Key.GetToken(); tk.Value == key && tk.Position != nil {
			return diag.Pos{File: d.File, Line: tk.Position.Line, Col: tk.Position.Column}, true
		}
	}
	return diag.Pos{}, false
}

// yamlPath maps a settings key path to the path in the file.
func (d *Document) yamlPath(path []any) []any {
	if d.Form != FormHermes {
		return path
	}
	if len(path) > 0 {
		if key, ok := path[0].(string); ok {
			if tk, ok := terminalKeys[key]; ok {
				return append([]any{"terminal", tk}, path[1:]...)
			}
			if strings.HasPrefix(key, "plugin:") {
				path = append([]any{strings.TrimPrefix(key, "plugin:")}, path[1:]...)
			}
		}
	}
	if d.legacy && len(path) > 0 {
		if key, ok := path[0].(string); ok {
			for _, k := range legacyKeys {
				if k.path[0] != key {
					continue
				}
				// The PR-era key stands for its whole settings path
				// (home_allow for home.allow): what lies below it is
				// inside its value.
				n := 0
				for n < len(k.path) && n < len(path) && path[n] == any(k.path[n]) {
					n++
				}
				return append([]any{"terminal", "bubblewrap_" + k.suffix}, path[n:]...)
			}
		}
	}
	base := d.settingsPath
	if base == nil {
		base = settingsSources[0]
	}
	out := make([]any, 0, len(base)+len(path))
	for _, k := range base {
		out = append(out, k)
	}
	return append(out, path...)
}

func (d *Document) lookup(path []any) ast.Node {
	b := (&yaml.PathBuilder{}).Root()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			b = b.Child(k)
		case int:
			if k < 0 {
				return nil
			}
			b = b.Index(uint(k))
		default:
			return nil
		}
	}
	node, err := b.Build().FilterFile(d.ast)
	if err != nil || node == nil {
		return nil
	}
	return node
}

// PathString renders a key path as "binds[1].src".
func PathString(path []any) string {
	var b strings.Builder
	for _, p := range path {
		switch k := p.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", k)
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			fmt.Fprint(&b, k)
		}
	}
	return b.String()
}

// Load reads and parses a settings file. Every problem comes back as a
// positioned diagnostic; Load never panics on bad input.
func Load(file string) (*Document, diag.List) {
	f, err := invocation.OpenRegular(file)
	if err != nil {
		return nil, diag.List{readError(file, err)}
	}
	defer f.Close()
	src, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, diag.List{readError(file, invocation.ReadError(file, err))}
	}
	return Parse(file, src)
}

func readError(file string, err error) diag.Diagnostic {
	var nr *invocation.NotRegularError
	if errors.As(err, &nr) {
		return diag.Diagnostic{Severity: diag.Error, Rule: "input", Pos: diag.Pos{File: file},
			Summary: "is " + invocation.FileKind(nr.Mode) + ", not a settings file"}
	}
	var stalled *invocation.StalledError
	if errors.As(err, &stalled) {
		return diag.Diagnostic{Severity: diag.Error, Rule: "input", Pos: diag.Pos{File: file},
			Summary: fmt.Sprintf("gave nothing to read within %v: a pseudo-file (such as /proc/kmsg), not a settings file", invocation.ReadWait)}
	}
	msg := err.Error()
	var pe *os.PathError
	if errors.As(err, &pe) {
		msg = pe.Err.Error()
	}
	return diag.Diagnostic{Severity: diag.Error, Rule: "input", Pos: diag.Pos{File: file},
		Summary: "cannot read settings file: " + msg}
}

// Parse parses settings from src; file names it in diagnostics.
//
// src is bounded before it is parsed: over MaxFileSize bytes, too much
// structure, nesting or, aliases expanded, too many values is refused,
// positioned, without expanding anything. A UTF-8 byte order mark at the
// start is dropped.
func Parse(file string, src []byte) (*Document, diag.List) {
	if len(src) > MaxFileSize {
		return &Document{File: file}, diag.List{tooLarge(file)}
	}
	src = stripBOM(src)
	doc := &Document{File: file, Source: src}
	if len(bytes.TrimSpace(src)) == 0 {
		return doc, diag.List{{Severity: diag.Error, Rule: "yaml", Pos: diag.Pos{File: file, Line: 1, Col: 1},
			Summary: "empty settings file (write {} for all defaults)"}}
	}
	if d, ok := checkStructure(file, src); !ok {
		return doc, diag.List{d}
	}
	if d, ok := checkDepth(file, src); !ok {
		return doc, diag.List{d}
	}
	f, err := parseYAML(src)
	if err != nil {
		return doc, diag.List{syntaxDiag(file, err)}
	}
	if d, ok := checkNodes(file, f); !ok {
		return doc, diag.List{d}
	}
	doc.ast = f
	if len(f.Docs) != 1 {
		return doc, diag.List{{Severity: diag.Error, Rule: "yaml", Pos: diag.Pos{File: file, Line: 1, Col: 1},
			Summary: fmt.Sprintf("expected one YAML document, found %d", len(f.Docs))}}
	}
	if f.Docs[0].Body == nil {
		return doc, diag.List{{Severity: diag.Error, Rule: "yaml", Pos: diag.Pos{File: file, Line: 1, Col: 1},
			Summary: "settings file has no content, only comments (write {} for all defaults)"}}
	}
	var raw any
	if err := nodeToValue(f.Docs[0].Body, &raw); err != nil {
		return doc, diag.List{syntaxDiag(file, err)}
	}
	top, ok := plainNumbers(f.Docs[0].Body, normalize(raw)).(map[string]any)
	if !ok {
		return doc, diag.List{{Severity: diag.Error, Rule: "schema", Pos: doc.Pos(nil),
			Summary: "settings must be a mapping of keys to values"}}
	}
	var diags diag.List
	doc.Form, doc.Values, diags = extract(doc, top)
	if diags.HasErrors() {
		return doc, diags
	}
	return doc, diags
}

// extract returns the settings object in the standalone shape. In a
// Hermes config the settings come from the highest source that is set
// (settingsSources, then the PR-era keys: pluginSettings,
// legacySettings); the terminal.* keys are read beside them.
func extract(doc *Document, top map[string]any) (Form, map[string]any, diag.List) {
	_, hasPlugins := top["plugins"]
	_, hasTerminal := top["terminal"]
	if !hasPlugins && !hasTerminal {
		normalizeHomeMode(top)
		return FormStandalone, top, doc.sandboxDirUnused(top, []string{"sandbox_dir"})
	}
	doc.Form = FormHermes
	out := map[string]any{}
	m, from, ds := doc.pluginSettings(top)
	if ds.HasErrors() {
		return FormHermes, nil, ds
	}
	legacy, used, lds := doc.legacySettings(top, from)
	ds.Append(lds)
	switch {
	case from != nil:
		doc.settingsPath = from
	case used:
		doc.legacy = true
		m = legacy
	}
	for k, v := range m {
		if _, isTerminal := terminalKeys[k]; isTerminal && !doc.legacy {
			// Inside the plugin settings these keys are unknown:
			// keep them so the schema reports them.
			k = "plugin:" + k
		}
		out[k] = v
	}
	if term, ok := top["terminal"].(map[string]any); ok {
		for tk, key := range terminalKeys {
			if v, ok := term[tk]; ok && v != nil {
				out[key] = v
			}
		}
	}
	normalizeHomeMode(out)
	ds.Append(doc.sandboxDirUnused(out, []string{"terminal", "sandbox_dir"}))
	return FormHermes, out, ds
}

// sandboxDirUnused warns when the settings set sandbox_dir (Hermes'
// terminal.sandbox_dir, at key in the file): it is recorded and not
// used. Hermes' own backend keeps its state directories there; this one
// keeps each environment's state in HERMES_HOME/sandboxes/bwrap-ID and
// its scratch in HERMES_HOME/cache/scratch/hermes-bwrap-ID, made without
// following links, and shows a command its own only.
func (d *Document) sandboxDirUnused(settings map[string]any, key []string) diag.List {
	if v, ok := settings["sandbox_dir"].(string); !ok || v == "" {
		return nil
	}
	return diag.List{{Severity: diag.Warning, Rule: RuleConfigSource, Pos: d.lookupPos(key), Path: strings.Join(key, "."),
		Summary: "recorded, not used: this backend keeps each environment's state in HERMES_HOME/sandboxes/bwrap-ID, not under sandbox_dir",
		Detail:  "Nothing is created there and no mount depends on it; delete the key to silence this warning."}}
}

func (d *Document) lookupPos(keys []string) diag.Pos {
	path := make([]any, len(keys))
	for i, k := range keys {
		path[i] = k
	}
	saved := d.Form
	d.Form = FormStandalone
	defer func() { d.Form = saved }()
	return d.Pos(path)
}

// normalize turns go-yaml's generic values into JSON-like values.
func normalize(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = normalize(e)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[fmt.Sprint(k)] = normalize(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = normalize(e)
		}
		return out
	case json.Number, string, bool, nil:
		return t
	case int:
		return json.Number(strconv.Itoa(t))
	case int64:
		return json.Number(strconv.FormatInt(t, 10))
	case uint64:
		return json.Number(strconv.FormatUint(t, 10))
	case float64:
		if math.IsInf(t, 0) || math.IsNaN(t) {
			return t // not a JSON number: the schema stage reports it
		}
		return json.Number(strconv.FormatFloat(t, 'g', -1, 64))
	default:
		return fmt.Sprint(t)
	}
}

func syntaxDiag(file string, err error) diag.Diagnostic {
	d := diag.Diagnostic{Severity: diag.Error, Rule: "yaml", Pos: diag.Pos{File: file}}
	var se *yaml.SyntaxError
	var te *yaml.TypeError
	var dk *yaml.DuplicateKeyError
	switch {
	case errors.As(err, &se):
		d.Summary = "invalid YAML: " + se.Message
		if se.Token != nil && se.Token.Position != nil {
			d.Pos.Line, d.Pos.Col = se.Token.Position.Line, se.Token.Position.Column
		}
	case errors.As(err, &dk):
		d.Summary = "invalid YAML: " + dk.Message
		if dk.Token != nil && dk.Token.Position != nil {
			d.Pos.Line, d.Pos.Col = dk.Token.Position.Line, dk.Token.Position.Column
		}
	case errors.As(err, &te):
		d.Summary = "invalid YAML: " + te.Error()
		if te.Token != nil && te.Token.Position != nil {
			d.Pos.Line, d.Pos.Col = te.Token.Position.Line, te.Token.Position.Column
		}
	default:
		d.Summary = "invalid YAML: " + firstLine(err.Error())
	}
	return d
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Defaults returns the document of the embedded defaults: no keys set, so
// every value comes from the profile and the seed's defaults.
func Defaults(name string) *Document {
	return &Document{File: name, Form: FormDefaults, Values: map[string]any{}}
}

// nodeToValue decodes a YAML node, turning a panic inside the YAML
// library into an error: bad input must never end in a stack trace.
func nodeToValue(node ast.Node, out *any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cannot decode YAML: %v", r)
		}
	}()
	return yaml.NodeToValue(node, out)
}

// parseYAML parses src, turning a panic inside the YAML parser into an
// error.
func parseYAML(src []byte) (f *ast.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("cannot parse YAML: %v", r)
		}
	}()
	return parser.ParseBytes(src, 0)
}
