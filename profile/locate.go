package profile

import (
	"errors"
	"time"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/parser"

	"github.com/bwpolicy/bwpolicy/internal/bounded"
)

// CUE evaluates a file whole (cue.Context.CompileBytes), with no hook
// between its fields, so a bound crossed while a custom profile is
// evaluated names the file but not the field. Only then, a second bounded
// child finds the field: it evaluates the file's first declaration, then
// the first two, and so on, marking each declaration's position, so the
// bound is crossed again at the declaration whose evaluation crosses it.
// It costs nothing unless a bound was crossed, and at most locateTime
// then.

// opLocate is the call of a child that finds the field of a crossed bound.
const opLocate = "locate"

// locateTime bounds the search for the field (the time bound, if lower).
const locateTime = time.Second

// locate evaluates ever longer prefixes of the profile file, in the
// child, marking each one's last declaration; it returns when all of
// them evaluate (the bound was crossed elsewhere: in decoding).
func locate(file string) error {
	src, err := bounded.ReadFile(file, MaxProfileSize)
	if err != nil {
		return err
	}
	f, err := parser.ParseFile(file, src)
	if err != nil {
		return err
	}
	for _, d := range f.Decls {
		switch d.(type) {
		case *ast.Package, *ast.ImportDecl, *ast.CommentGroup, *ast.Attribute:
			continue
		}
		end := d.End().Offset()
		if end <= 0 || end > len(src) {
			return errors.New("profile: a declaration without a position")
		}
		w := &bounded.Where{File: file, Line: d.Pos().Line(), Col: d.Pos().Column()}
		if fd, ok := d.(*ast.Field); ok {
			if name, _, err := ast.LabelName(fd.Label); err == nil {
				w.Name = "field " + name
			}
		}
		bounded.Mark(w)
		// A context of its own: the prefixes before are garbage, and the
		// bound is crossed where the one evaluation crosses it.
		v := cuecontext.New().CompileBytes(src[:end], cue.Filename(file))
		_ = v.Validate()
	}
	bounded.Mark(&bounded.Where{File: file})
	return nil
}

// locateField is the position of the field whose evaluation crosses a
// bound in file, found by a child under lim (locate); ok is false when
// no field crosses one alone.
func locateField(file string, lim bounded.Limits) (w bounded.Where, ok bool) {
	lim.Time = min(lim.Time, locateTime)
	if lim.Time <= 0 {
		lim.Time = locateTime
	}
	c, err := bounded.Start(childKind, lim)
	if err != nil {
		return w, false
	}
	defer c.Close()
	_, err = c.Call(opLocate, []byte(file))
	var ex *bounded.Exceeded
	if !errors.As(err, &ex) || ex.Where.File != file || ex.Where.Line == 0 {
		return w, false
	}
	return ex.Where, true
}
