// Package profile is the CUE stage of bwpolicy's pipeline: it unifies the
// chosen profile (built in, or a custom .cue file from --profiles) with
// the shared #Profile definition, which fixes every S property, and
// merges the user's limits over the profile's defaults.
package profile

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	cueerrors "cuelang.org/go/cue/errors"

	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/internal/bounded"
	"github.com/bwpolicy/bwpolicy/profiles"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/schema"
)

// Limits are the resource limits (S1); zero disables one.
type Limits struct {
	MemoryMB   int64 `json:"memory_mb"`
	CPUSeconds int64 `json:"cpu_seconds"`
	MaxProcs   int64 `json:"max_procs"`
}

// Profile is a profile after unification with #Profile.
type Profile struct {
	Name           string          `json:"name"`
	Description    string          `json:"description"`
	CwdWritable    bool            `json:"cwd_writable"`
	Network        string          `json:"network"`
	Defaults       Limits          `json:"defaults"`
	Namespaces     map[string]bool `json:"namespaces"`
	DieWithParent  bool            `json:"die_with_parent"`
	NewSession     bool            `json:"new_session"`
	Root           string          `json:"root"`
	Dev            string          `json:"dev"`
	Proc           string          `json:"proc"`
	Tmp            string          `json:"tmp"`
	RunUser        string          `json:"run_user"`
	DockerSocket   string          `json:"docker_socket"`
	UnsetEnv       map[string]bool `json:"unset_env"`
	HiddenHome     map[string]bool `json:"hidden_home"`
	HideHermesHome bool            `json:"hide_hermes_home"`
	PinParents     bool            `json:"pin_parents"`

	// Source is the profile's file ("profiles/network.cue" for a built-in).
	Source string `json:"source"`
	// Custom is true for a profile loaded from a --profiles directory.
	Custom bool `json:"custom"`
	// Pos maps a field name to where its value comes from (file, line
	// and column), for --explain (which names file and line) and the
	// policy stage's findings.
	Pos map[string]diag.Pos `json:"-"`
}

// HiddenNames returns the hidden home entries, sorted.
func (p *Profile) HiddenNames() []string {
	var out []string
	for k, v := range p.HiddenHome {
		if v {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// Set is the profiles available to one run: the built-in ones and those
// of the --profiles directories.
type Set struct {
	ctx    *cue.Context
	def    cue.Value
	values map[string]cue.Value
	files  map[string]string
	custom map[string]bool
	// failed says why a profile does not decode, in a set a bounded
	// child decoded (LoadWith).
	failed map[string]string
	// decoded caches each profile as decoded (before the limits are
	// merged): CUE validation and decoding are a fifth of a compile's
	// allocations, and a Set never changes.
	decoded sync.Map // name → *Profile
}

var (
	builtinOnce sync.Once
	builtin     *Set
	builtinErr  diag.List
)

// Builtin returns the built-in profiles, compiled once per process.
func Builtin() (*Set, diag.List) {
	builtinOnce.Do(func() { builtin, builtinErr = load(nil) })
	return builtin, builtinErr
}

func load(dirs []string) (*Set, diag.List) {
	ctx := cuecontext.New()
	s := &Set{ctx: ctx, values: map[string]cue.Value{}, files: map[string]string{}, custom: map[string]bool{}}
	sv := ctx.CompileBytes(schema.SandboxCUE, cue.Filename("schema/sandbox.cue"))
	if err := sv.Err(); err != nil {
		return nil, cueDiags(err, "internal")
	}
	s.def = sv.LookupPath(cue.ParsePath("#Profile"))
	var diags diag.List
	budget := NewBudget()
	for _, name := range profiles.Names {
		src, err := profiles.FS.ReadFile(name + ".cue")
		if err != nil {
			return nil, diag.List{{Severity: diag.Error, Rule: "internal", Summary: err.Error()}}
		}
		diags.Append(s.add(name, "profiles/"+name+".cue", src, false))
	}
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			diags.Add(diag.Diagnostic{Severity: diag.Error, Rule: "input", Pos: diag.Pos{File: dir},
				Summary: "cannot read profiles directory: " + err.Error()})
			continue
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".cue") {
				continue
			}
			file := filepath.Join(dir, e.Name())
			src, err := budget.ReadFile(file)
			if err != nil {
				d := diag.Diagnostic{Severity: diag.Error, Rule: "input", Pos: diag.Pos{File: file},
					Summary: "cannot read profile: " + invocation.ReadFailure(err)}
				var big *bounded.TooLarge
				var over *bounded.OverBudget
				switch {
				case errors.As(err, &big):
					d.Pos.Line, d.Pos.Col = 1, 1
					d.Summary = fmt.Sprintf("profile larger than %d bytes (1 MiB): profiles are a screenful of CUE, and bwpolicy reads no more", MaxProfileSize)
				case errors.As(err, &over):
					d.Pos.Line, d.Pos.Col = 1, 1
					d.Summary = fmt.Sprintf("the profiles of --profiles are over %d files or %d bytes (8 MiB) here: profiles are a screenful of CUE each, and bwpolicy reads no more", MaxProfiles, MaxProfilesBytes)
					diags.Add(d)
					diags.Sort()
					return s, diags
				}
				diags.Add(d)
				continue
			}
			name := strings.TrimSuffix(e.Name(), ".cue")
			bounded.Mark(&bounded.Where{File: file})
			if _, dup := s.files[name]; dup {
				diags.Add(diag.Diagnostic{Severity: diag.Error, Rule: "R13", Pos: diag.Pos{File: file, Line: 1, Col: 1},
					Summary: fmt.Sprintf("custom profile %q would replace the profile of %s", name, s.files[name])})
				continue
			}
			diags.Append(s.add(name, file, src, true))
		}
	}
	diags.Sort()
	return s, diags
}

func (s *Set) add(name, file string, src []byte, custom bool) diag.List {
	v := s.ctx.CompileBytes(src, cue.Filename(file))
	if err := v.Err(); err != nil {
		return placed(cueDiags(err, "cue"), file, v)
	}
	diags := s.unknownFields(v)
	u := s.def.Unify(v)
	missing := missingFields(file, v, u)
	diags.Append(missing)
	if err := u.Validate(cue.Concrete(true)); err != nil {
		for _, d := range cueDiags(err, "R13") {
			if !strings.HasPrefix(d.Summary, "incomplete value ") || !hasPath(missing, d.Path) {
				diags.Add(d)
			}
		}
	}
	if diags.HasErrors() {
		return placed(diags, file, u)
	}
	got, _ := u.LookupPath(cue.ParsePath("name")).String()
	if got != name {
		p := u.LookupPath(cue.ParsePath("name")).Pos()
		return diag.List{{Severity: diag.Error, Rule: "cue", Pos: diag.Pos{File: file, Line: p.Line(), Col: p.Column()},
			Summary: fmt.Sprintf("profile name %q does not match its file name %q", got, name+".cue")}}
	}
	s.values[name] = u
	s.files[name] = file
	s.custom[name] = custom
	return nil
}

// unknownFields reports the top-level fields of a profile that #Profile
// does not define: a profile is closed, so a misspelt property is an
// error rather than silently ignored.
// missingFields reports each top-level field #Profile requires that the
// profile v leaves without a value (u is v unified with #Profile), in
// plain words, placed on the profile's first line (a missing field has
// no position of its own). CUE reports them only when nothing else is
// wrong; this reports them alongside the other errors.
func missingFields(file string, v, u cue.Value) diag.List {
	it, err := u.Fields()
	if err != nil {
		return nil
	}
	var out diag.List
	for it.Next() {
		sel := it.Selector()
		if dv, _ := it.Value().Default(); dv.IsConcrete() || v.LookupPath(cue.MakePath(sel)).Exists() {
			continue
		}
		out.Add(diag.Diagnostic{Severity: diag.Error, Rule: "R13", Path: sel.String(),
			Pos:     diag.Pos{File: file, Line: 1, Col: 1},
			Summary: fmt.Sprintf("required field %s is missing: set it in the profile (a %s; #Profile in schema/sandbox.cue says which values)", sel.String(), it.Value().IncompleteKind())})
	}
	return out
}

func (s *Set) unknownFields(v cue.Value) diag.List {
	it, err := v.Fields(cue.All())
	if err != nil {
		return cueDiags(err, "cue")
	}
	var out diag.List
	for it.Next() {
		sel := it.Selector()
		if s.def.Allows(sel) {
			continue
		}
		p := it.Value().Pos()
		out.Add(diag.Diagnostic{Severity: diag.Error, Rule: "cue", Path: sel.String(),
			Pos:     diag.Pos{File: p.Filename(), Line: p.Line(), Col: p.Column()},
			Summary: fmt.Sprintf("unknown profile field %q (a profile may set name, description, cwd_writable, network, defaults, hidden_home)", sel.String())})
	}
	return out
}

// Names lists the profiles of s, sorted.
func (s *Set) Names() []string {
	out := make([]string, 0, len(s.files))
	for n := range s.files {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Resolve returns the named profile with the user's limits (nil: not
// set) merged over its defaults.
func (s *Set) Resolve(name string, memoryMB, cpuSeconds, maxProcs *int64) (*Profile, error) {
	base, err := s.decode(name)
	if err != nil {
		return nil, err
	}
	p := base.clone()
	// The settings' limits replace the profile's defaults (the schema
	// stage has checked them; R12 checks them again). A profile's
	// defaults are only defaults: a custom profile writing
	// `defaults: memory_mb: 1024` does not forbid a settings file 512.
	for _, o := range []struct {
		val *int64
		dst *int64
	}{{memoryMB, &p.Defaults.MemoryMB}, {cpuSeconds, &p.Defaults.CPUSeconds}, {maxProcs, &p.Defaults.MaxProcs}} {
		if o.val != nil {
			*o.dst = *o.val
		}
	}
	return p, nil
}

// decode validates and decodes the named profile once per Set.
func (s *Set) decode(name string) (*Profile, error) {
	if p, ok := s.decoded.Load(name); ok {
		return p.(*Profile), nil
	}
	if why, ok := s.failed[name]; ok {
		return nil, errors.New(why)
	}
	v, ok := s.values[name]
	if !ok {
		return nil, fmt.Errorf("unknown profile %q (known: %s)", name, strings.Join(s.Names(), ", "))
	}
	if err := v.Validate(cue.Concrete(true)); err != nil {
		return nil, fmt.Errorf("%s", strings.TrimSpace(cueerrors.Details(err, nil)))
	}
	var p Profile
	if err := v.Decode(&p); err != nil {
		return nil, err
	}
	p.Source = s.files[name]
	p.Custom = s.custom[name]
	p.Pos = map[string]diag.Pos{}
	for _, f := range []string{"name", "cwd_writable", "network", "hidden_home", "namespaces", "root",
		"defaults.memory_mb", "defaults.cpu_seconds", "defaults.max_procs", "run_user", "docker_socket", "unset_env"} {
		pos := v.LookupPath(cue.ParsePath(f)).Pos()
		if pos.Filename() != "" {
			p.Pos[f] = diag.Pos{File: pos.Filename(), Line: pos.Line(), Col: pos.Column()}
		}
	}
	s.decoded.Store(name, &p)
	return &p, nil
}

// clone is a copy of p that shares nothing mutable with it.
func (p *Profile) clone() *Profile {
	c := *p
	c.Namespaces = maps.Clone(p.Namespaces)
	c.UnsetEnv = maps.Clone(p.UnsetEnv)
	c.HiddenHome = maps.Clone(p.HiddenHome)
	c.Pos = maps.Clone(p.Pos)
	return &c
}

// hasPath reports whether a diagnostic of l is about settings path p.
func hasPath(l diag.List, p string) bool {
	for _, d := range l {
		if d.Path == p {
			return true
		}
	}
	return false
}

// MaxProfileSize bounds a custom profile file: profiles are a screenful
// of CUE.
const MaxProfileSize = 1 << 20

// MaxProfilesBytes and MaxProfiles bound the profile files of all
// --profiles directories together.
const (
	MaxProfilesBytes = 8 << 20
	MaxProfiles      = 1000
)

// NewBudget is the budget the profile files of the --profiles
// directories are read under, in the child that evaluates them and in
// the parent that shows their lines.
func NewBudget() *bounded.Budget {
	return &bounded.Budget{PerFile: MaxProfileSize, Total: MaxProfilesBytes, Files: MaxProfiles}
}
