package policy

import (
	"reflect"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

type sharedRow struct {
	Path string `json:"path"`
	Kind string `json:"kind"`
	N    int    `json:"n"`
}

type sharedInput struct {
	Rows []sharedRow `json:"rows"`
}

// TestShareTerms: a shared type's equal values become one term, in one
// conversion and across conversions, with the JSON round trip's value;
// different values get their own; the cache starts over past
// maxSharedTerms values.
func TestShareTerms(t *testing.T) {
	ShareTerms(reflect.TypeFor[sharedRow]())
	in := sharedInput{Rows: []sharedRow{{"/a", "dir", 1}, {"/b", "file", 2}, {"/a", "dir", 1}}}
	term := func(v ast.Value, i int) *ast.Term {
		return v.(ast.Object).Get(ast.StringTerm("rows")).Value.(*ast.Array).Elem(i)
	}
	v1, err := InputValue(in)
	if err != nil {
		t.Fatal(err)
	}
	v2, _ := InputValue(in)
	if term(v1, 0) != term(v1, 2) || term(v1, 0) != term(v2, 0) {
		t.Error("equal values were not given the same term")
	}
	if term(v1, 0) == term(v1, 1) {
		t.Error("different values share a term")
	}
	if want, err := toValueJSON(in); err != nil || v1.Compare(want) != 0 {
		t.Errorf("value %v, want %v (%v)", v1, want, err)
	}
	c, _ := sharedTypes.Load(reflect.TypeFor[sharedRow]())
	for i := range maxSharedTerms + 10 {
		if _, err := InputValue(sharedInput{Rows: []sharedRow{{"/x", "file", i}}}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(c.(*termCache).terms); n > maxSharedTerms {
		t.Errorf("%d terms kept, bound %d", n, maxSharedTerms)
	}
}
