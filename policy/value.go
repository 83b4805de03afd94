package policy

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
)

// errSlowPath marks a value valueOf does not convert itself (a custom
// marshaller, a map with non-string keys, a channel …): toValue then
// takes the JSON round trip.
var errSlowPath = errors.New("policy: value needs the JSON round trip")

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// valueOf converts v to the ast.Value that encoding/json followed by
// ast.InterfaceToValue would give (the Rego input's shape is its JSON
// form), without the text in between: for a compile's input it is the
// larger part of the policy stage. TestValueOfMatchesJSON holds the two
// equal.
func valueOf(v reflect.Value) (ast.Value, error) {
	if !v.IsValid() {
		return ast.Null{}, nil
	}
	t := v.Type()
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && marshals(t) {
		return nil, errSlowPath
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return ast.Null{}, nil
		}
		if t.Kind() == reflect.Pointer {
			if c, ok := sharedPointers.Load(t); ok {
				return c.(*termCache).value(v)
			}
		}
		return valueOf(v.Elem())
	case reflect.Bool:
		return ast.Boolean(v.Bool()), nil
	case reflect.String:
		return ast.String(jsonString(v.String())), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return ast.Number(strconv.FormatInt(v.Int(), 10)), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return ast.Number(strconv.FormatUint(v.Uint(), 10)), nil
	case reflect.Float32, reflect.Float64:
		b, err := json.Marshal(v.Interface())
		if err != nil {
			return nil, err
		}
		return ast.Number(b), nil
	case reflect.Slice:
		if v.IsNil() {
			return ast.Null{}, nil
		}
		if t.Elem().Kind() == reflect.Uint8 {
			return ast.String(base64.StdEncoding.EncodeToString(v.Bytes())), nil
		}
		fallthrough
	case reflect.Array:
		terms := make([]*ast.Term, v.Len())
		for i := range terms {
			x, err := termOf(v.Index(i))
			if err != nil {
				return nil, err
			}
			terms[i] = x
		}
		return ast.NewArray(terms...), nil
	case reflect.Map:
		if v.IsNil() {
			return ast.Null{}, nil
		}
		if t.Key().Kind() != reflect.String {
			return nil, errSlowPath
		}
		items := make([][2]*ast.Term, 0, v.Len())
		for it := v.MapRange(); it.Next(); {
			x, err := termOf(it.Value())
			if err != nil {
				return nil, err
			}
			items = append(items, ast.Item(ast.StringTerm(jsonString(it.Key().String())), x))
		}
		return ast.NewObject(items...), nil
	case reflect.Struct:
		// One ast.NewObject over all the members: it sizes the object
		// once and holds its members in one block, where Insert would
		// allocate each and grow the table as it goes.
		fs := structFields(t)
		items := make([][2]*ast.Term, 0, len(fs))
		for _, f := range fs {
			fv, err := v.FieldByIndexErr(f.index)
			if err != nil {
				continue // a field of a nil embedded pointer: encoding/json leaves it out
			}
			if f.omitEmpty && isEmpty(fv) {
				continue
			}
			x, err := termOf(fv)
			if err != nil {
				return nil, err
			}
			items = append(items, ast.Item(f.key, x))
		}
		return ast.NewObject(items...), nil
	}
	return nil, errSlowPath
}

// termOf is valueOf as a term. A boolean is OPA's own shared term for
// it (ast.InternedTerm), as is a string OPA interns: the input holds
// thousands of them, each a term allocated otherwise.
func termOf(v reflect.Value) (*ast.Term, error) {
	switch v.Kind() {
	case reflect.Bool:
		if !marshals(v.Type()) {
			return ast.InternedTerm(v.Bool()), nil
		}
	case reflect.String:
		if s := v.String(); utf8.ValidString(s) && !marshals(v.Type()) {
			return ast.InternedTerm(s), nil
		}
	}
	if v.Kind() == reflect.Struct {
		if c, ok := sharedTypes.Load(v.Type()); ok {
			return c.(*termCache).term(v)
		}
	}
	x, err := valueOf(v)
	if err != nil {
		return nil, err
	}
	return ast.NewTerm(x), nil
}

// sharedPointers holds a termCache for each type given to SharePointers.
var sharedPointers sync.Map // reflect.Type → *termCache

// maxSharedPointers bounds each pointer cache (a value there is a whole
// policy input's facts): past it, the cache starts over.
const maxSharedPointers = 64

// SharePointers makes the conversion of a pointer of type t remember the
// value it made for each pointer (by identity, which the cache keeps
// alive) and hand the same value out for that pointer later. The values
// pointed to must never change after their first conversion.
func SharePointers(t reflect.Type) {
	if t.Kind() != reflect.Pointer {
		panic("policy.SharePointers: " + t.String() + " is not a pointer type")
	}
	sharedPointers.LoadOrStore(t, &termCache{terms: map[any]*ast.Term{}, max: maxSharedPointers})
}

// value is the value of pointer v, converted once.
func (c *termCache) value(v reflect.Value) (ast.Value, error) {
	key := v.Interface()
	c.mu.Lock()
	t, ok := c.terms[key]
	c.mu.Unlock()
	if ok {
		return t.Value, nil
	}
	x, err := valueOf(v.Elem())
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.terms) >= c.limit() {
		clear(c.terms)
		sharedValues.Clear()
	}
	c.terms[key] = ast.NewTerm(x)
	c.mu.Unlock()
	if o, ok := x.(ast.Object); ok {
		sharedValues.Store(o, true)
	}
	return x, nil
}

// sharedValues holds the objects SharePointers' caches made: a remote
// engine sends each to a child once (pool.evaluate).
var sharedValues sync.Map // ast.Object → true

// isShared reports whether v is an object a pointer cache made.
func isShared(v ast.Value) bool {
	o, ok := v.(ast.Object)
	if !ok {
		return false
	}
	_, shared := sharedValues.Load(o)
	return shared
}

// sharedTypes holds a termCache for each type given to ShareTerms.
var sharedTypes sync.Map // reflect.Type → *termCache

// maxSharedTerms bounds each termCache: past it, the cache starts over.
const maxSharedTerms = 4096

// termCache is the terms made for the values of one shared type, by
// value.
type termCache struct {
	mu    sync.Mutex
	terms map[any]*ast.Term
	max   int // 0: maxSharedTerms
}

func (c *termCache) limit() int {
	if c.max > 0 {
		return c.max
	}
	return maxSharedTerms
}

func (c *termCache) term(v reflect.Value) (*ast.Term, error) {
	key := v.Interface()
	c.mu.Lock()
	t, ok := c.terms[key]
	c.mu.Unlock()
	if ok {
		return t, nil
	}
	x, err := valueOf(v)
	if err != nil {
		return nil, err
	}
	t = ast.NewTerm(x)
	c.mu.Lock()
	if len(c.terms) >= maxSharedTerms {
		clear(c.terms)
	}
	c.terms[key] = t
	c.mu.Unlock()
	return t, nil
}

// ShareTerms makes the conversion of values of t, a comparable struct
// type, remember the term it made for each value and hand the same term
// out for an equal value later, in any conversion of this process.
// Terms are not changed once built (OPA shares its own interned terms
// the same way). For the values every compile repeats: the denied set,
// the home layout's entries, which `bwpolicy check` would otherwise
// convert again for each of its files.
func ShareTerms(t reflect.Type) {
	if t.Kind() != reflect.Struct || !t.Comparable() {
		panic("policy.ShareTerms: " + t.String() + " is not a comparable struct type")
	}
	sharedTypes.LoadOrStore(t, &termCache{terms: map[any]*ast.Term{}})
}

var marshalsCache sync.Map // reflect.Type → bool

// marshals reports whether t or *t has its own JSON or text form
// (json.Marshaler, encoding.TextMarshaler), remembered per type.
func marshals(t reflect.Type) bool {
	if m, ok := marshalsCache.Load(t); ok {
		return m.(bool)
	}
	pt := reflect.PointerTo(t)
	m := t.Implements(jsonMarshaler) || t.Implements(textMarshaler) || pt.Implements(jsonMarshaler) || pt.Implements(textMarshaler)
	marshalsCache.Store(t, m)
	return m
}

// jsonString is s as encoding/json writes it: each byte of invalid UTF-8
// becomes U+FFFD.
func jsonString(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// field is one JSON member of a struct type.
type field struct {
	name string
	// key is name as a term, made once per type and shared by every
	// object converted (terms are not changed once built: OPA shares
	// its own interned terms the same way).
	key       *ast.Term
	index     []int
	omitEmpty bool
}

var fieldCache sync.Map // reflect.Type → []field

// structFields lists the JSON members of t as encoding/json does for the
// types the policy input holds: exported fields, the tag's name,
// omitempty, "-" and untagged embedded structs flattened. A name given
// twice (where encoding/json's depth rules would decide) is not
// expected in the input; the shallower field wins.
func structFields(t reflect.Type) []field {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.([]field)
	}
	var fs []field
	seen := map[string]bool{}
	var walk func(t reflect.Type, index []int)
	walk = func(t reflect.Type, index []int) {
		var embedded []reflect.StructField
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if sf.Anonymous && name == "" {
				ft := sf.Type
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					sf.Index = append(append([]int(nil), index...), i)
					embedded = append(embedded, sf)
					continue
				}
			}
			if !sf.IsExported() {
				continue
			}
			if name == "" {
				name = sf.Name
			}
			if seen[name] {
				continue
			}
			seen[name] = true
			fs = append(fs, field{name: name, key: ast.StringTerm(name), index: append(append([]int(nil), index...), i),
				omitEmpty: strings.Contains(","+opts+",", ",omitempty,")})
		}
		for _, sf := range embedded {
			ft := sf.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			walk(ft, sf.Index)
		}
	}
	walk(t, nil)
	fieldCache.Store(t, fs)
	return fs
}

// isEmpty is encoding/json's omitempty test.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}
