package invocation

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// decodeMode says what a decode keeps.
type decodeMode struct {
	// toRun: the fields tagged `fastdecode:"checkonly"` (Warnings,
	// Explain) are read as strictly but not kept (ReadFileToRun).
	toRun bool
}

// fastDecodeText parses the common shape of an invocation without
// encoding/json's reflection, whose first use costs a few hundred
// microseconds on every command. It accepts only exactly spelled keys,
// each at most once, and values of exactly the expected JSON type (or
// null, which like encoding/json leaves the zero value); on anything
// else (unknown fields, case variants, control characters, syntax errors)
// it reports ok=false and Decode falls back to encoding/json,
// which stays the reference for both results and error messages.
// TestFastDecodeMatchesJSON and FuzzDecode check the two agree. The
// per-type readers (decodeInvocation and the rest) are generated from
// the types' json tags into fastdecode_gen.go by internal/fastdecodegen
// (TestFastDecodeGenerated checks the file is current).
//
// text is the same bytes as data as a string: every string without
// escapes that it reads is a substring of text instead of an allocation
// of its own (an invocation has hundreds of strings; in a fresh process
// the memory they take is paid in page faults on every command's path).
//
//go:generate go run ../../internal/fastdecodegen/gen
func fastDecodeText(data []byte, text string, m decodeMode) (inv *Invocation, ok bool) {
	d := &fastDec{s: data, text: text, checkOnly: m.toRun}
	inv = &Invocation{}
	if !d.decodeInvocation(inv) {
		return nil, false
	}
	d.ws()
	if d.i != len(d.s) {
		return nil, false
	}
	return inv, true
}

// fastDec is a minimal JSON reader for fastDecodeText.
type fastDec struct {
	s    []byte
	text string // string(s): the backing store of the strings read
	i    int
	// checkOnly: the checkonly fields are read into a scratch element
	// (see internal/fastdecodegen).
	checkOnly bool
}

func (d *fastDec) ws() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *fastDec) peek(c byte) bool {
	d.ws()
	if d.i < len(d.s) && d.s[d.i] == c {
		d.i++
		return true
	}
	return false
}

// null consumes a JSON null, if that is what comes next.
func (d *fastDec) null() bool {
	d.ws()
	if len(d.s)-d.i >= 4 && string(d.s[d.i:d.i+4]) == "null" {
		d.i += 4
		return true
	}
	return false
}

// object reads {"key": value, ...}, calling field for each key (which
// must read the value). Duplicate keys fail.
func (d *fastDec) object(field func(key string) bool) bool {
	if d.null() {
		return true // like encoding/json: no effect
	}
	if !d.peek('{') {
		return false
	}
	if d.peek('}') {
		return true
	}
	var seenKeys [16]string // on the stack: no allocation per object
	seen := seenKeys[:0]
	for {
		var k string
		if !d.str(&k) || !d.peek(':') {
			return false
		}
		for _, s := range seen {
			if s == k {
				return false
			}
		}
		seen = append(seen, k)
		if !field(k) {
			return false
		}
		if d.peek(',') {
			continue
		}
		return d.peek('}')
	}
}

// array reads [elem, ...]; elem reads one element.
func (d *fastDec) array(elem func() bool) bool {
	if d.null() {
		return true
	}
	if !d.peek('[') {
		return false
	}
	if d.peek(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if d.peek(',') {
			continue
		}
		return d.peek(']')
	}
}

// str reads a string. Strings with escapes, and non-ASCII ones that are
// not valid UTF-8 (encoding/json replaces the bad bytes with U+FFFD),
// are handed to encoding/json; valid UTF-8 is taken as it is, as
// encoding/json does (a path or an explanation with "é" or "…" must not
// send the whole invocation to the slow decoder on every command).
func (d *fastDec) str(out *string) bool {
	if d.null() {
		return true
	}
	if !d.peek('"') {
		return false
	}
	start := d.i
	// Most strings are printable ASCII without escapes: find the closing
	// quote (bytes.IndexByte) and check the bytes before it eight at a
	// time; anything else takes the byte-by-byte path.
	if n := bytes.IndexByte(d.s[start:], '"'); n >= 0 && plainASCII(d.s[start:start+n]) {
		d.i = start + n + 1
		*out = d.text[start : start+n]
		return true
	}
	escaped, ascii := false, true
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			if !escaped && (ascii || utf8.Valid(d.s[start:d.i-1])) {
				*out = d.text[start : d.i-1]
				return true
			}
			return unquote(d.s[start-1:d.i], out)
		case c == '\\':
			escaped = true
			d.i += 2
			continue
		case c < 0x20:
			return false // invalid in JSON: encoding/json says where
		case c >= 0x80:
			ascii = false
		}
		d.i++
	}
	return false
}

// plainASCII reports whether b holds only printable ASCII other than the
// backslash (0x20–0x7f without 0x5c): a JSON string body that means
// itself.
func plainASCII(b []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for len(b) >= 8 {
		w := binary.LittleEndian.Uint64(b)
		bs := w ^ (0x5c * ones)
		// A byte with its high bit set, below 0x20, or equal to '\\'.
		if (w|((w-0x20*ones)&^w)|((bs-ones)&^bs))&highs != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c < 0x20 || c >= 0x80 || c == '\\' {
			return false
		}
	}
	return true
}

// unquote decodes a quoted JSON string with escapes into *out. It is a
// function of its own so that out does not escape: encoding/json takes
// its target as an interface, which would move every string str reads
// into (an object's keys included) to the heap.
//
//go:noinline
func unquote(quoted []byte, out *string) bool {
	var s string
	if json.Unmarshal(quoted, &s) != nil {
		return false
	}
	*out = s
	return true
}

func (d *fastDec) strs(out *[]string) bool {
	if d.null() {
		*out = nil
		return true
	}
	list := make([]string, 0, d.count())
	ok := d.array(func() bool {
		var s string
		ok := d.str(&s)
		list = append(list, s)
		return ok
	})
	*out = list
	return ok
}

// count returns the number of elements of the array that comes next
// (0 when something else does, or it is malformed: reading it then
// fails), without consuming it, so that the slice it is read into is
// allocated once at its final size: growing it by appends would touch
// about twice the memory, which a fresh process pays in page faults.
func (d *fastDec) count() int {
	d.ws()
	if d.i >= len(d.s) || d.s[d.i] != '[' {
		return 0
	}
	depth, n, empty := 0, 0, true
	for i := d.i; i < len(d.s); i++ {
		switch c := d.s[i]; c {
		case '"':
			i = closingQuote(d.s, i+1)
			empty = false
		case '[', '{':
			if depth++; depth > 1 {
				empty = false
			}
		case ']', '}':
			if depth--; depth == 0 {
				if empty {
					return 0
				}
				return n + 1
			}
		case ',':
			if depth == 1 {
				n++
			}
		case ' ', '\t', '\n', '\r':
		default:
			empty = false
		}
	}
	return 0
}

// closingQuote returns the index of the quote that ends the JSON string
// whose body starts at i (len(s) if there is none): the first quote not
// escaped by an odd run of backslashes.
func closingQuote(s []byte, i int) int {
	for {
		n := bytes.IndexByte(s[i:], '"')
		if n < 0 {
			return len(s)
		}
		q := i + n
		bs := 0
		for k := q - 1; k >= i && s[k] == '\\'; k-- {
			bs++
		}
		if bs%2 == 0 {
			return q
		}
		i = q + 1
	}
}

// number returns the text of a JSON integer (no fraction or exponent).
func (d *fastDec) number() (string, bool) {
	d.ws()
	start := d.i
	if d.i < len(d.s) && d.s[d.i] == '-' {
		d.i++
	}
	digits := d.i
	for d.i < len(d.s) && d.s[d.i] >= '0' && d.s[d.i] <= '9' {
		d.i++
	}
	if d.i == digits || (d.s[digits] == '0' && d.i-digits > 1) {
		return "", false
	}
	if d.i < len(d.s) {
		switch d.s[d.i] {
		case '.', 'e', 'E':
			return "", false
		}
	}
	return string(d.s[start:d.i]), true
}

func (d *fastDec) uint(out *uint64, bits int) bool {
	if d.null() {
		return true
	}
	n, ok := d.number()
	if !ok {
		return false
	}
	v, err := strconv.ParseUint(n, 10, bits)
	*out = v
	return err == nil
}

func (d *fastDec) int(out *int) bool {
	var v int64
	ok := d.intBits(&v, strconv.IntSize)
	*out = int(v)
	return ok
}

func (d *fastDec) int64(out *int64) bool { return d.intBits(out, 64) }

func (d *fastDec) intBits(out *int64, bits int) bool {
	if d.null() {
		return true
	}
	n, ok := d.number()
	if !ok {
		return false
	}
	v, err := strconv.ParseInt(n, 10, bits)
	*out = v
	return err == nil
}

func (d *fastDec) ports(out *[]uint16) bool {
	if d.null() {
		*out = nil
		return true
	}
	list := []uint16{}
	ok := d.array(func() bool {
		var v uint64
		ok := d.uint(&v, 16)
		list = append(list, uint16(v))
		return ok
	})
	*out = list
	return ok
}

func (d *fastDec) boolean(out *bool) bool {
	if d.null() {
		return true
	}
	d.ws()
	switch {
	case len(d.s)-d.i >= 4 && string(d.s[d.i:d.i+4]) == "true":
		d.i += 4
		*out = true
	case len(d.s)-d.i >= 5 && string(d.s[d.i:d.i+5]) == "false":
		d.i += 5
		*out = false
	default:
		return false
	}
	return true
}
