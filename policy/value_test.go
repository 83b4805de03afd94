package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
)

// viaJSON is the reference: the input's JSON form read back as OPA
// reads JSON.
func viaJSON(t *testing.T, input any) ast.Value {
	t.Helper()
	b, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	v, err := ast.ValueFromReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

type inner struct {
	Path string `json:"path"`
	Kind string `json:"kind,omitempty"`
}

type sample struct {
	Name    string           `json:"name"`
	Skip    string           `json:"-"`
	Omitted []string         `json:"omitted,omitempty"`
	Nil     []string         `json:"nil"`
	Empty   []string         `json:"empty"`
	Bytes   []byte           `json:"bytes"`
	Map     map[string]bool  `json:"map"`
	NilMap  map[string]int   `json:"nil_map"`
	Ptr     *inner           `json:"ptr"`
	NilPtr  *inner           `json:"nil_ptr"`
	Any     any              `json:"any"`
	Nums    []any            `json:"nums"`
	Untag   int              `json:""`
	Bad     string           `json:"bad"`
	Arr     [2]uint8         `json:"arr"`
	Nested  map[string][]any `json:"nested"`
	//lint:ignore U1000 an unexported field: not in the JSON
	unexp  string
	ByName map[string]string `json:"by_name,omitempty"`
	inner                    // flattened
	*Extra                   // nil: its fields are left out
}

type Extra struct {
	More string `json:"more"`
}

func TestValueOfMatchesJSON(t *testing.T) {
	inputs := []any{
		nil, true, "x", 3, uint64(1 << 63), -7, 1.5, 1e21, 1e-7, 0.0,
		[]string{"a"}, map[string]any{"a": []any{1.0, "b", nil, map[string]any{}}},
		sample{
			Name: "n", Skip: "s", Empty: []string{}, Bytes: []byte{0, 1, 2, 255}, Map: map[string]bool{"b": true, "a": false},
			Ptr: &inner{Path: "/p"}, Any: map[string]any{"k": []int{1, 2}}, Nums: []any{1.25, int64(-3), uint8(4), float32(0.1)},
			Untag: 9, Bad: "a\xffb\xc3(", Arr: [2]uint8{1, 2}, Nested: map[string][]any{"x": {true, "y"}},
			inner: inner{Path: "/flat", Kind: "dir"},
		},
		&sample{Extra: &Extra{More: "m"}},
	}
	// A marshaller anywhere sends the whole input the JSON way.
	withTime := map[string]any{"t": time.Date(2026, 11, 30, 11, 0, 0, 0, time.UTC), "s": sample{}}
	if v, err := InputValue(withTime); err != nil || v.Compare(viaJSON(t, withTime)) != 0 {
		t.Errorf("with a time.Time: %v, %v", v, err)
	}
	for _, in := range inputs {
		got, err := valueOf(reflect.ValueOf(in))
		if err != nil {
			t.Fatalf("%#v: %v", in, err)
		}
		if want := viaJSON(t, in); got.Compare(want) != 0 {
			t.Errorf("%#v:\n got %v\nwant %v", in, got, want)
		}
	}
}

func TestValueOfLeavesMarshalersToJSON(t *testing.T) {
	if _, err := valueOf(reflect.ValueOf(time.Now())); !errors.Is(err, errSlowPath) {
		t.Errorf("a json.Marshaler was converted directly: %v", err)
	}
	if _, err := valueOf(reflect.ValueOf(map[int]string{1: "a"})); !errors.Is(err, errSlowPath) {
		t.Errorf("a map with int keys was converted directly: %v", err)
	}
}
