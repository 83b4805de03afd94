package fastdecodegen

import (
	"reflect"
	"strings"
	"testing"
)

// TestGenerateRefuses: a field type the fast reader has no method for
// is an error naming the field, not a decoder that skips it.
func TestGenerateRefuses(t *testing.T) {
	type withFloat struct {
		F float64 `json:"f"`
	}
	type withIntMap struct {
		M map[int]string `json:"m"`
	}
	type withIntPtr struct {
		P *int `json:"p"`
	}
	for _, c := range []struct {
		v    any
		want string
	}{{withFloat{}, "withFloat.F"}, {withIntMap{}, "map key int"}, {withIntPtr{}, "pointer to int"}} {
		if _, err := Generate("p", reflect.TypeOf(c.v)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%T: got %v, want an error naming %q", c.v, err, c.want)
		}
	}
}

// TestGenerateShapes: every supported field shape gets its reader, keyed
// by the json name (a field without a tag by its Go name, "-" skipped).
func TestGenerateShapes(t *testing.T) {
	type Inner struct {
		N int `json:"n"`
	}
	type Outer struct {
		S    string              `json:"s,omitempty"`
		B    bool                `json:"b"`
		I64  int64               `json:"i64"`
		U    uint64              `json:"u"`
		In   Inner               `json:"in"`
		P    *Inner              `json:"p"`
		L    []Inner             `json:"l"`
		SS   []string            `json:"ss"`
		Port []uint16            `json:"port"`
		Raw  []byte              `json:"raw"`
		M    map[string][]string `json:"m"`
		Bare string
		Skip string `json:"-"`
		//lint:ignore U1000 an unexported field, which the generator must leave out
		priv string
	}
	src, err := Generate("p", reflect.TypeOf(Outer{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`case "s":`, "d.str(&v.S)", "d.boolean(&v.B)", "d.int64(&v.I64)", "d.uint(&v.U, 64)",
		"d.decodeInner(&v.In)", "v.P = &Inner{}", "v.L = append(v.L, Inner{})", "d.decodeInner(&v.L[len(v.L)-1])", "d.strs(&v.SS)", "d.ports(&v.Port)",
		"base64.StdEncoding.DecodeString", "v.M = map[string][]string{}", `case "Bare":`, "func (d *fastDec) decodeInner(v *Inner) bool"} {
		if !strings.Contains(string(src), want) {
			t.Errorf("generated source lacks %q", want)
		}
	}
	if strings.Contains(string(src), "Skip") || strings.Contains(string(src), "priv") {
		t.Error("a skipped or unexported field got a reader")
	}
}
