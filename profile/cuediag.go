package profile

import (
	"fmt"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/token"

	cueerrors "cuelang.org/go/cue/errors"

	"github.com/bwpolicy/bwpolicy/diag"
)

// schemaFile is the name CUE gives the shared definitions
// (schema/sandbox.cue, built into bwpolicy).
const schemaFile = "schema/sandbox.cue"

// cueDiags turns CUE errors into positioned diagnostics, all of them.
// A diagnostic is placed at the error's position inside a profile (not
// in the shared definitions); every other position CUE gives — the
// other side of a conflict, often the value #Profile fixes in
// schema/sandbox.cue — is kept as a related position.
func cueDiags(err error, rule string) diag.List {
	var out diag.List
	for _, e := range cueerrors.Errors(err) {
		d := diag.Diagnostic{Severity: diag.Error, Rule: rule}
		format, args := e.Msg()
		d.Summary = fmt.Sprintf(format, args...)
		var all []diag.Pos
		add := func(p token.Pos) {
			if p.Filename() == "" {
				return
			}
			dp := diag.Pos{File: p.Filename(), Line: p.Line(), Col: p.Column()}
			for _, o := range all {
				if o == dp {
					return
				}
			}
			all = append(all, dp)
		}
		add(e.Position())
		for _, ip := range e.InputPositions() {
			add(ip)
		}
		// The error's own position, unless an input position lies
		// inside a profile (not in the shared definitions): the first
		// such one.
		primary, own := -1, e.Position().Filename() != ""
		if own {
			primary = 0
		}
		for i, p := range all {
			if (i > 0 || !own) && p.File != schemaFile {
				primary = i
				break
			}
		}
		for i, p := range all {
			if i == primary {
				d.Pos = p
				continue
			}
			msg := "another value this error involves"
			if p.File == schemaFile {
				msg = "the value bwpolicy's shared definition #Profile sets"
			}
			d.Related = append(d.Related, diag.Related{Pos: p, Message: msg})
		}
		if path := e.Path(); len(path) > 0 {
			d.Path = strings.Join(path, ".")
		}
		out = append(out, d)
	}
	return out
}

// placed gives every diagnostic CUE could not place (a structural cycle,
// an incomplete value) a file and a line: where v sets the longest
// prefix of its path, else the first line of file.
func placed(ds diag.List, file string, v cue.Value) diag.List {
	for i := range ds {
		d := &ds[i]
		if d.Pos.File != "" && d.Pos.Line > 0 {
			continue
		}
		d.Pos = diag.Pos{File: file, Line: 1, Col: 1}
		if d.Path == "" {
			continue
		}
		parts := strings.Split(d.Path, ".")
		for n := len(parts); n > 0; n-- {
			p := cue.ParsePath(strings.Join(parts[:n], "."))
			if p.Err() != nil {
				continue
			}
			if pos := v.LookupPath(p).Pos(); pos.Filename() == file && pos.Line() > 0 {
				d.Pos = diag.Pos{File: file, Line: pos.Line(), Col: pos.Column()}
				break
			}
		}
	}
	return ds
}
