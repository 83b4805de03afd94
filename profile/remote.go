package profile

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"strings"

	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/internal/bounded"
)

// childKind is the kind of bounded child that evaluates custom profiles.
const childKind = "cue"

// loaded is what a child sends back: every profile decoded (or why it
// does not decode), the names in order, and the load's diagnostics.
type loaded struct {
	Files   map[string]string
	Custom  map[string]bool
	Decoded map[string]*Profile
	Failed  map[string]string
	Diags   diag.List
	Refused bool // load returned no set
}

func init() { bounded.Handle(childKind, serveChild) }

// serveChild loads the profiles of the directories it is sent and
// decodes each one, in the child.
func serveChild(op string, body []byte) ([]byte, error) {
	if op == opLocate {
		return nil, locate(string(body))
	}
	if op != "load" {
		return nil, errors.New("profile: unknown call " + op)
	}
	var dirs []string
	if err := gob.NewDecoder(bytes.NewReader(body)).Decode(&dirs); err != nil {
		return nil, err
	}
	set, ds := load(dirs)
	out := loaded{Diags: ds, Refused: set == nil}
	if set != nil {
		out.Files, out.Custom = set.files, set.custom
		out.Decoded, out.Failed = map[string]*Profile{}, map[string]string{}
		for _, name := range set.Names() {
			bounded.Mark(&bounded.Where{File: set.files[name], Name: "profile " + name})
			p, err := set.decode(name)
			if err != nil {
				out.Failed[name] = err.Error()
				continue
			}
			out.Decoded[name] = p
		}
	}
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode(out)
	return b.Bytes(), err
}

// LoadWith returns the built-in profiles plus the .cue files of dirs (a
// custom profile's name must match its file name), the custom profiles
// evaluated in a bounded child process (package bounded) under lim: CUE evaluation cannot be
// interrupted, and a profile is untrusted input. The set it returns
// holds the profiles decoded; a crossed bound is a "policy" diagnostic
// (the run cannot be trusted; exit 2) at the profile being evaluated.
func LoadWith(dirs []string, lim bounded.Limits) (*Set, diag.List) {
	if len(dirs) == 0 {
		return Builtin()
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(dirs); err != nil {
		return nil, diag.List{{Severity: diag.Error, Rule: "internal", Summary: err.Error()}}
	}
	c, err := bounded.Start(childKind, lim)
	if err != nil {
		return nil, diag.List{{Severity: diag.Error, Rule: "internal", Summary: "custom profiles: " + err.Error()}}
	}
	defer c.Close()
	out, err := c.Call("load", b.Bytes())
	if err != nil {
		var ex *bounded.Exceeded
		if errors.As(err, &ex) && ex.Where.File != "" && ex.Where.Line == 0 {
			if w, ok := locateField(ex.Where.File, lim); ok {
				ex.Where = w
			}
		}
		return nil, diag.List{exceededDiag(err, dirs)}
	}
	var l loaded
	if err := gob.NewDecoder(bytes.NewReader(out)).Decode(&l); err != nil {
		return nil, diag.List{{Severity: diag.Error, Rule: "internal", Summary: "custom profiles: " + err.Error()}}
	}
	if l.Refused {
		return nil, l.Diags
	}
	s := &Set{files: l.Files, custom: l.Custom, failed: l.Failed}
	for name, p := range l.Decoded {
		s.decoded.Store(name, p)
	}
	return s, l.Diags
}

// exceededDiag words an error of the child: a crossed bound at the
// profile it was evaluating (or the directories, when it could not say).
func exceededDiag(err error, dirs []string) diag.Diagnostic {
	d := diag.Diagnostic{Severity: diag.Error, Rule: "policy", Pos: diag.Pos{File: strings.Join(dirs, ", ")},
		Detail: "custom profiles are evaluated in a separate process with a time and a memory bound, so that no profile can hang or exhaust the machine; nothing was decided"}
	var ex *bounded.Exceeded
	if !errors.As(err, &ex) {
		d.Rule = "internal"
		d.Summary = "custom profiles: " + err.Error()
		return d
	}
	what := "the custom profiles"
	if ex.Where.File != "" {
		d.Pos = diag.Pos{File: ex.Where.File, Line: ex.Where.Line, Col: ex.Where.Col}
		what = "custom profile " + ex.Where.File
		if strings.HasPrefix(ex.Where.Name, "field ") {
			what += " (" + ex.Where.Name + ")"
		}
	}
	switch ex.Bound {
	case bounded.Time:
		d.Summary = fmt.Sprintf("evaluating %s did not finish within the time bound (%s); --eval-timeout sets it", what, ex.Limit)
	case bounded.Memory:
		d.Summary = fmt.Sprintf("evaluating %s used more than the memory bound (%s); --eval-memory sets it", what, ex.Limit)
	default:
		d.Summary = fmt.Sprintf("evaluating %s failed: %s", what, ex.Detail)
	}
	return d
}
