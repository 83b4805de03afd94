package compiler

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/policy"
	"github.com/bwpolicy/bwpolicy/profile"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/schema"
	"github.com/bwpolicy/bwpolicy/settings"
)

// DefaultsName is the file name diagnostics use for the embedded defaults.
const DefaultsName = "<embedded defaults>"

// DiscoverFile returns $HERMES_HOME/config.yaml (default
// ~/.hermes/config.yaml) when it exists, else "".
func DiscoverFile() string {
	hh := os.Getenv("HERMES_HOME")
	if hh == "" {
		home := os.Getenv("HOME")
		if home == "" {
			return ""
		}
		hh = filepath.Join(home, ".hermes")
	}
	p := filepath.Join(hh, "config.yaml")
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	return p
}

func loadSettings(st *state) {
	req := st.req
	var doc *settings.Document
	var ds diag.List
	switch {
	case req.Source != nil:
		doc, ds = settings.Parse(req.File, req.Source)
	case req.File != "":
		doc, ds = settings.Load(req.File)
	default:
		if f := DiscoverFile(); f != "" {
			doc, ds = settings.Load(f)
		} else {
			doc, ds = settings.Defaults(DefaultsName), nil
		}
	}
	st.res.Document = doc
	st.res.Diags.Append(ds)
}

// validateSchema reports what the schema refuses and, when dropping it
// leaves valid settings, lets the later stages run on those.
func validateSchema(st *state) {
	doc := st.res.Document
	ds := schema.Validate(doc.Values, doc)
	st.res.Diags.Append(ds)
	st.values = doc.Values
	if n := errorCount(ds); n > 0 {
		if pruned, ok := schema.Prune(doc.Values, ds); ok {
			st.values, st.recovered = pruned, n
		}
	}
}

func decodeSettings(st *state) {
	doc := st.res.Document
	b, err := json.Marshal(st.values)
	var s settings.Settings
	if err == nil {
		err = json.Unmarshal(b, &s)
	}
	if err != nil {
		st.res.Diags.Add(diag.Diagnostic{Severity: diag.Error, Rule: "schema", Pos: doc.Pos(nil), Summary: err.Error()})
		return
	}
	canonicalHomePaths(&s)
	if st.req.Profile != "" {
		s.Profile = st.req.Profile
	}
	if st.req.Cwd != "" {
		s.Cwd = st.req.Cwd
	}
	if st.req.SandboxID != "" {
		s.SandboxID = st.req.SandboxID
	}
	if s.Profile == "" {
		s.Profile = settings.DefaultProfile
	}
	st.res.Settings = &s
}

func resolveProfile(st *state) {
	set := st.req.Profiles
	if set == nil {
		var ds diag.List
		set, ds = profile.Builtin()
		st.res.Diags.Append(ds)
		if ds.HasErrors() {
			return
		}
	}
	s := st.res.Settings
	var p *profile.Profile
	var err error
	if st.req.Lint != nil {
		p, err = st.req.Lint.resolve(set, s.Profile, s.MemoryMB, s.CPUSeconds, s.MaxProcs)
	} else {
		p, err = set.Resolve(s.Profile, s.MemoryMB, s.CPUSeconds, s.MaxProcs)
	}
	if err != nil {
		st.res.Diags.Add(diag.Diagnostic{Severity: diag.Error, Rule: "profile", Path: "profile",
			Pos: st.settingsPos("profile"), Summary: err.Error()})
		return
	}
	st.res.Profile = p
}

func gatherFacts(st *state) {
	h := st.req.Host
	if h == nil {
		h = facts.FromEnvironment()
		st.req.Host = h
	}
	expandBindHome(st.res.Settings, h.Home)
	if id := st.res.Settings.SandboxID; id != "" && st.req.PrepareSandbox != nil && facts.IsOS(h.FS) {
		if err := st.req.PrepareSandbox(h.HermesHome, id); err != nil {
			st.res.Diags.Add(diag.Diagnostic{Severity: diag.Error, Rule: string(invocation.ReasonHermesExceptions), Path: "sandbox_id",
				Pos: st.settingsPos("sandbox_id"), Summary: "cannot create this environment's state and scratch directories: " + err.Error()})
			return
		}
		if m, ok := h.FS.(*facts.Memo); ok {
			m.Forget() // what it remembers of HERMES_HOME predates the new directories
		}
	}
	sealer, sealed := h.FS.(facts.Sealer)
	if sealed {
		sealer.Open()
	}
	if st.req.Facts != nil {
		st.res.Facts = st.req.Facts.Gather(h, st.res.Settings, st.res.Profile)
	} else {
		st.res.Facts = facts.Gather(h, st.res.Settings, st.res.Profile)
	}
	if sealed {
		sealer.Seal() // nothing after the facts stage reads the host
	}
	st.refuseUnexaminable()
}

// canonicalHomePaths writes every spelling of the home directory in the
// paths of s (hide, binds, home.allow) as "~/" (facts.CanonicalHomePath),
// so that "~", "~/", "$HOME" and "${HOME}" are judged alike.
func canonicalHomePaths(s *settings.Settings) {
	for i, h := range s.Hide {
		s.Hide[i] = facts.CanonicalHomePath(h)
	}
	for i, b := range s.Binds {
		s.Binds[i].Src = facts.CanonicalHomePath(b.Src)
		if b.Dest != "" {
			s.Binds[i].Dest = facts.CanonicalHomePath(b.Dest)
		}
	}
	if s.Home != nil {
		for i, a := range s.Home.Allow {
			s.Home.Allow[i] = facts.CanonicalHomePath(a)
		}
	}
}

// expandBindHome expands a leading "~/" of bind sources and destinations
// to the home directory, as Hermes does for terminal.cwd.
func expandBindHome(s *settings.Settings, home string) {
	for i, b := range s.Binds {
		if strings.HasPrefix(b.Src, "~/") {
			s.Binds[i].Src = filepath.Join(home, b.Src[2:])
		}
		if strings.HasPrefix(b.Dest, "~/") {
			s.Binds[i].Dest = filepath.Join(home, b.Dest[2:])
		}
	}
}

// policyInput is the document the rules see (published as
// schema/policy-input.schema.json).
type policyInput struct {
	Settings map[string]any   `json:"settings"`
	Profile  *profile.Profile `json:"profile"`
	Facts    *facts.Facts     `json:"facts"`
	Known    *known           `json:"known"`
}

func init() {
	// The denied set and the home layout's entries are the bulk of the
	// policy input and the same from one compile to the next (one
	// `bwpolicy check` compiles many files): converted once per value.
	policy.ShareTerms(reflect.TypeFor[facts.Hidden]())
	policy.ShareTerms(reflect.TypeFor[facts.HomeEntry]())
	// Facts a facts.Cache hands out are shared between compiles and never
	// changed: converted once per pointer.
	policy.SharePointers(reflect.TypeFor[*facts.Facts]())
	// The known names are one value, never changed.
	policy.SharePointers(reflect.TypeFor[*known]())
}

// newPolicyInput is the policy input of a compilation that reached the
// policy stage.
func newPolicyInput(res *Result) policyInput {
	return policyInput{Settings: mergedSettings(res.Settings, res.Profile), Profile: res.Profile, Facts: res.Facts, Known: knownNames}
}

// mergedSettings is the settings with the profile's defaults filled in:
// what custom rules see as input.settings.
func mergedSettings(s *settings.Settings, p *profile.Profile) map[string]any {
	b, _ := json.Marshal(s)
	m := map[string]any{}
	_ = json.Unmarshal(b, &m)
	m["profile"] = p.Name
	m["memory_mb"] = p.Defaults.MemoryMB
	m["cpu_seconds"] = p.Defaults.CPUSeconds
	m["max_procs"] = p.Defaults.MaxProcs
	m["tmp_mb"] = s.TmpMBOrDefault()
	if _, ok := m["binds"]; !ok {
		m["binds"] = []any{}
	}
	// An empty port allowlist allows nothing: the rules must see it,
	// though JSON leaves an empty list out.
	if n, ok := m["network"].(map[string]any); ok && s.Network != nil {
		if s.Network.TCPConnect != nil {
			n["tcp_connect"] = s.Network.TCPConnect
		}
		if s.Network.TCPBind != nil {
			n["tcp_bind"] = s.Network.TCPBind
		}
	}
	return m
}

func evaluatePolicy(st *state) {
	eng := st.req.Policy
	if eng == nil {
		var err error
		eng, err = policy.Builtin()
		if err != nil {
			st.res.Diags.Add(diag.Diagnostic{Severity: diag.Error, Rule: "internal", Summary: "policy: " + err.Error()})
			return
		}
	}
	in := newPolicyInput(st.res)
	var vs []policy.Violation
	var err error
	if st.req.Lint != nil {
		vs, err = st.req.Lint.evaluate(st.ctx, st.req.Facts, eng, in)
	} else {
		vs, err = eng.Evaluate(st.ctx, in)
	}
	if err != nil {
		// An organisation rule that fails when evaluated: "policy" at
		// its position; a built-in one: "internal" (see Failure).
		st.res.Diags.Append(policy.ErrorDiags(err))
		return
	}
	st.violations = vs
	for _, v := range vs {
		st.res.Diags.Add(st.violationDiag(v))
	}
	st.secretWarnings()
	st.gitWarnings()
}

func (st *state) violationDiag(v policy.Violation) diag.Diagnostic {
	d := diag.Diagnostic{Severity: v.Severity, Rule: v.Rule, Summary: v.Message, Path: settings.PathString(v.Path), Host: v.Host}
	if v.In == "profile" {
		d.Pos = profilePos(st.res.Profile, v.Path)
		if !st.res.Profile.Custom {
			// A built-in profile is no file of the user's: the finding
			// goes to the settings line that selected it.
			d.Summary += fmt.Sprintf(" (built-in profile %s, %s)", st.res.Profile.Name, d.Pos)
			d.Pos = st.settingsPos("profile")
		}
		return d
	}
	if v.Host && len(v.Path) == 0 {
		// About the machine, not a line of the file.
		d.Pos = diag.Pos{File: st.res.Document.File}
		return d
	}
	d.Pos = st.settingsPos(v.Path...)
	d.Related = st.defaultRelated(v.Path)
	return d
}

// defaultRelated is, for a limit the settings leave to a custom
// profile's defaults, the place in that profile that sets it (a file of
// the user's, unlike a built-in profile); nil otherwise.
func (st *state) defaultRelated(path []any) []diag.Related {
	p, doc := st.res.Profile, st.res.Document
	if len(path) == 0 || p == nil || !p.Custom || doc == nil {
		return nil
	}
	key, ok := path[0].(string)
	if !ok || !profileDefaults[key] || doc.Has(key) || st.flagOf(key) != "" {
		return nil
	}
	at, ok := p.Pos["defaults."+key]
	if !ok || at.File != p.Source { // the value #Profile defaults to
		return nil
	}
	return []diag.Related{{Pos: at, Message: fmt.Sprintf("the default of profile %s, which the settings do not override", p.Name)}}
}

// profilePos returns where a profile field is set, as a position: the
// longest prefix of path the profile records ("defaults.memory_mb",
// else "defaults"), else the profile's file.
func profilePos(p *profile.Profile, path []any) diag.Pos {
	var keys []string
	for _, k := range path {
		s, ok := k.(string)
		if !ok {
			break
		}
		keys = append(keys, s)
	}
	for n := len(keys); n > 0; n-- {
		if where, ok := p.Pos[strings.Join(keys[:n], ".")]; ok {
			return where
		}
	}
	return diag.Pos{File: p.Source}
}
