package profile

import (
	"errors"
	"runtime"
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
// child finds the field: it parses the file once, keeps each
// declaration's position and end and lets the syntax tree go, then
// evaluates the file's first declaration, then the first two, and so
// on, each prefix on a fresh clock and marked with its last
// declaration's position, so the bound is crossed again at the
// declaration whose evaluation crosses it (not at a cheap one the
// prefixes before used the time up to). It costs nothing unless a bound
// was crossed, and then at most locateTime for the parse and
// 2·locateTime for the prefixes. (A parse that shared the search's
// clock, or whose tree stayed live beside the prefixes, crossed the
// bound itself on a loaded machine: the file named, the field not.)

// opLocate is the call of a child that finds the field of a crossed bound.
const opLocate = "locate"

// locateTime bounds the parse and each prefix's evaluation in the search
// for the field; the prefixes together stop at twice that.
const locateTime = 3 * time.Second

// decl is what the search keeps of a declaration: where it starts, its
// field name if it is a field, and where it ends.
type decl struct {
	where bounded.Where
	end   int
}

// locate evaluates ever longer prefixes of the profile file, in the
// child, marking each one's last declaration; it returns when all of
// them evaluate (the bound was crossed elsewhere: in decoding).
func locate(file string) error {
	src, err := bounded.ReadFile(file, MaxProfileSize)
	if err != nil {
		return err
	}
	decls, err := declsOf(file, src)
	if err != nil {
		return err
	}
	runtime.GC() // the syntax tree is garbage: the prefixes have the bound
	stop := time.Now().Add(2 * locateTime)
	for _, d := range decls {
		if time.Now().After(stop) {
			break // no field crossed the bound alone in time
		}
		bounded.Mark(&d.where)
		bounded.Restart()
		// A context of its own: the prefixes before are garbage, and the
		// bound is crossed where the one evaluation crosses it.
		v := cuecontext.New().CompileBytes(src[:d.end], cue.Filename(file))
		_ = v.Validate()
	}
	bounded.Mark(&bounded.Where{File: file})
	return nil
}

// declsOf parses file and returns its declarations that evaluate to
// something (not the package clause, imports, comments or attributes).
func declsOf(file string, src []byte) ([]decl, error) {
	f, err := parser.ParseFile(file, src)
	if err != nil {
		return nil, err
	}
	var out []decl
	for _, d := range f.Decls {
		switch d.(type) {
		case *ast.Package, *ast.ImportDecl, *ast.CommentGroup, *ast.Attribute:
			continue
		}
		end := d.End().Offset()
		if end <= 0 || end > len(src) {
			return nil, errors.New("profile: a declaration without a position")
		}
		w := bounded.Where{File: file, Line: d.Pos().Line(), Col: d.Pos().Column()}
		if fd, ok := d.(*ast.Field); ok {
			if name, _, err := ast.LabelName(fd.Label); err == nil {
				w.Name = "field " + name
			}
		}
		out = append(out, decl{where: w, end: end})
	}
	return out, nil
}

// locateField is the position of the field whose evaluation crosses a
// bound in file, found by a child under lim (locate); ok is false when
// no field crosses one alone.
func locateField(file string, lim bounded.Limits) (w bounded.Where, ok bool) {
	// Its own clock, whatever the bound crossed: the field whose
	// evaluation crossed a time bound crosses locateTime too (or is not
	// the one that matters), and a parse that a loaded machine slowed
	// past a short bound must not end the search before it began.
	lim.Time = locateTime
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
