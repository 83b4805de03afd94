package invocation

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/internal/goldentest"
	"github.com/bwpolicy/bwpolicy/internal/testglob"

	"github.com/bwpolicy/bwpolicy/internal/fastdecodegen"
)

// fill sets every field of v (recursively) to a non-zero value, so that
// a field added to Invocation shows up in the JSON these tests decode.
func fill(v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString("s" + strings.Repeat("x", *n%3) + "/é"[:1+*n%2])
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(*n))
	case reflect.Uint8:
		v.SetUint(uint64(*n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), n)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			fill(v.Field(i), n)
		}
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := 0; i < 2; i++ {
			fill(s.Index(i), n)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for i := 0; i < 2; i++ {
			k := reflect.New(v.Type().Key()).Elem()
			fill(k, n)
			e := reflect.New(v.Type().Elem()).Elem()
			fill(e, n)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	default:
		panic("fill: unhandled kind " + v.Kind().String())
	}
}

func referenceDecode(t testing.TB, data []byte) (*Invocation, bool) {
	t.Helper()
	var inv Invocation
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if dec.Decode(&inv) != nil {
		return nil, false
	}
	if _, err := dec.Token(); err == nil {
		return nil, false // trailing data
	}
	return &inv, true
}

func TestFastDecodeMatchesJSON(t *testing.T) {
	var full Invocation
	n := 0
	fill(reflect.ValueOf(&full).Elem(), &n)
	fullJSON, err := json.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	indented, _ := json.MarshalIndent(full, "", "  ")
	var empty Invocation
	emptyJSON, _ := json.Marshal(empty)

	for name, data := range map[string][]byte{
		"every field": fullJSON, "indented": indented, "zero": emptyJSON,
		"valid":   []byte(validJSON),
		"escapes": []byte(`{"format":"a\"b\\c\u00e9\n","bwrap":{"args":["x\/y"]},"chdir":"\ud83d\ude00"}`),
	} {
		want, ok := referenceDecode(t, data)
		if !ok {
			t.Fatalf("%s: reference decoder rejected it", name)
		}
		got, fast := fastDecode(data)
		checkOnlyAgrees(t, data, got, fast)
		if name == "every field" || name == "indented" || name == "zero" || name == "valid" {
			// The common, ASCII shape must take the fast path. ("every
			// field" holds "é", so only its ASCII variant is required.)
			if !fast && name != "every field" && name != "indented" {
				t.Errorf("%s: fast path not taken", name)
			}
		}
		if fast && !reflect.DeepEqual(got, want) {
			t.Errorf("%s: fast decode differs:\n got %+v\nwant %+v", name, got, want)
		}
	}

	// A field the fast path does not know must make it fall back rather
	// than drop the field: marshal the filled struct with ASCII strings.
	n = 0
	var ascii Invocation
	fill(reflect.ValueOf(&ascii).Elem(), &n)
	asciiJSON, _ := json.Marshal(ascii)
	asciiJSON = []byte(strings.ReplaceAll(string(asciiJSON), "é", "e"))
	got, fast := fastDecode(asciiJSON)
	want, _ := referenceDecode(t, asciiJSON)
	if !fast {
		t.Fatalf("fast path refused a document of known fields only; was a field added to Invocation without updating fastDecode? %s", asciiJSON)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("fast decode differs:\n got %+v\nwant %+v", got, want)
	}
}

func TestFastDecodeFallsBack(t *testing.T) {
	for _, in := range []string{
		`{"Format":"bwpolicy.invocation/v1"}`,   // case variant: encoding/json accepts it
		`{"format":"x","format":"y"}`,           // duplicate
		`{"rlimits":{"nproc":1e3}}`,             // exponent
		`{"rlimits":{"nproc":-1}}`,              // negative
		`{"fds":[{"fd":3,"kind":"info"},]}`,     // trailing comma
		`{"unknown":1}`,                         // unknown field
		`{"format":"bwpolicy.invocation/v1"} x`, // trailing data
		"\ufeff{}",                              // BOM
		"{\"chd\xc3\xafr\":\"x\"}",              // a non-ASCII key: unknown
	} {
		if _, ok := fastDecode([]byte(in)); ok {
			t.Errorf("fast path accepted %q", in)
		}
	}
}

// TestFastDecodeNonASCII: strings in valid UTF-8 (a path with "é", an
// explanation with "…") stay on the fast path, and a string with invalid
// UTF-8 is read as encoding/json reads it (U+FFFD for the bad bytes).
func TestFastDecodeNonASCII(t *testing.T) {
	for _, in := range []string{
		"{\"chdir\":\"/home/jos\xc3\xa9\"}",
		"{\"chdir\":\"a\xe2\x80\xa6b\"}",
		"{\"chdir\":\"\xe2\x80\xa8\"}",
		"{\"chdir\":\"bad\xc3(\"}",
		"{\"chdir\":\"bad\xff\"}",
		"{\"chdir\":\"\xc3\xa9\\n\"}",
	} {
		got, ok := fastDecode([]byte(in))
		if !ok {
			t.Errorf("fast path refused %q", in)
			continue
		}
		var want Invocation
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatal(err)
		}
		if got.Chdir != want.Chdir {
			t.Errorf("%q: fast %q, encoding/json %q", in, got.Chdir, want.Chdir)
		}
	}
}

// FuzzDecode: whenever the fast path accepts input, encoding/json must
// accept it too and decode the same value.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(validJSON))
	f.Add([]byte(`{"format":"bwpolicy.invocation/v1","bwrap":{"path":"/usr/bin/bwrap","args":["--unshare-all"]}}`))
	f.Add([]byte(`{"env":{"set":{"A":"1","B":"\u0041"}},"landlock":{"tcp_connect":[443,80],"scope_signal":true}}`))
	f.Add([]byte(`{"format":null,"fds":[null,{"fd":null}],"seccomp":null,"env":{"set":{"A":null},"unset":null},"bwrap":{"args":[null,"x"]}}`))
	f.Add([]byte(`{"env":{"unset_after_rc":["SSH_AUTH_SOCK",null],"credential_paths":{"GNUPGHOME":["/k",null],"KUBECONFIG":null}}}`))
	f.Add([]byte(`{"env":{"credential_paths":null,"unset_after_rc":null}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, fast := fastDecode(data)
		checkOnlyAgrees(t, data, got, fast)
		if !fast {
			return
		}
		want, ok := referenceDecode(t, data)
		if !ok {
			t.Fatalf("fast path accepted what encoding/json rejects: %q", data)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decoders differ on %q:\n got %+v\nwant %+v", data, got, want)
		}
		Decode(data) // must not panic
	})
}

// TestFastDecodeGoldens: the compiler's golden invocations take the fast
// path and decode exactly as encoding/json decodes them.
func TestFastDecodeGoldens(t *testing.T) {
	files := testglob.Files(t, filepath.Join(goldentest.Dir(t), "*.json"))
	decoded := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want, ok := referenceDecode(t, data)
		if !ok || want.Format != Format {
			continue // not an invocation
		}
		got, fast := fastDecode(data)
		checkOnlyAgrees(t, data, got, fast)
		if !fast {
			t.Errorf("%s: fast path not taken", f)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: fast decode differs", f)
		}
		decoded++
	}
	if decoded == 0 {
		t.Fatalf("none of the %d golden files is an invocation of format %s", len(files), Format)
	}
	t.Logf("%d golden invocations decoded on the fast path", decoded)
}

// checkOnlyAgrees: the fast path in DecodeFileToRun's mode accepts
// exactly what it accepts in full (got, fast) and decodes the same value
// without Warnings.
func checkOnlyAgrees(t *testing.T, data []byte, got *Invocation, fast bool) {
	t.Helper()
	run, runFast := fastDecodeText(data, string(data), decodeMode{toRun: true})
	if runFast != fast {
		t.Fatalf("toRun fast path ok=%v, full fast path ok=%v on %q", runFast, fast, data)
	}
	if !fast {
		return
	}
	want := *got
	want.Warnings = nil
	if !reflect.DeepEqual(run, &want) {
		t.Fatalf("toRun decode differs on %q:\n got %+v\nwant %+v", data, run, &want)
	}
}

// TestDecodeFileToRun: what DecodeFile rejects, DecodeFileToRun rejects
// (a malformed explanation or warning included: it is read, not
// skipped), and what it accepts comes without Warnings; its Explain rows
// carry their arguments (parts of Bwrap.Args) as DecodeFile's do.
func TestDecodeFileToRun(t *testing.T) {
	dir := t.TempDir()
	decodeBoth := func(data string) (full, run *Invocation, fullErr, runErr error) {
		p := filepath.Join(dir, "inv.json")
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, toRun := range []bool{false, true} {
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			if toRun {
				run, runErr = DecodeFileToRun(f, p)
			} else {
				full, fullErr = DecodeFile(f, p)
			}
			f.Close()
		}
		return
	}
	base := strings.Replace(strings.Replace(validJSON, `"explain": [`, `"explain":[`, 1),
		`"warnings": []`, `"warnings":[{"rule":"S5","message":"m","source":"a:1:2"}]`, 1)
	full, run, fullErr, runErr := decodeBoth(base)
	if fullErr != nil || runErr != nil {
		t.Fatalf("valid invocation: %v / %v", fullErr, runErr)
	}
	if len(full.Explain) == 0 || len(full.Warnings) == 0 {
		t.Fatal("the base invocation should have explanations and warnings for this test to mean something")
	}
	if run.Warnings != nil {
		t.Errorf("DecodeFileToRun kept Warnings: %d", len(run.Warnings))
	}
	if len(run.Explain) != 2 || len(run.Explain[1].Args) != 20 || run.Explain[1].Args[0] != "--ro-bind" {
		t.Errorf("DecodeFileToRun's explanation rows lack their arguments: %+v", run.Explain)
	}
	full.Warnings = nil
	if !reflect.DeepEqual(full, run) {
		t.Errorf("DecodeFileToRun differs from DecodeFile beyond Warnings:\n got %+v\nwant %+v", run, full)
	}
	for name, edit := range map[string][2]string{
		"explain unknown field":  {`"explain":[`, `"explain":[{"argz":["x"]},`},
		"explain wrong type":     {`"explain":[`, `"explain":[{"n":"x"},`},
		"explain args in file":   {`"explain":[`, `"explain":[{"args":["x"],"n":0,"rule":"a","reason":"b","source":"c"},`},
		"explain past the args":  {`"explain":[`, `"explain":[{"n":1,"rule":"a","reason":"b","source":"c"},`},
		"explain not an array":   {`"explain":[`, `"explain":{"a":[`},
		"warning unknown field":  {`"warnings":[`, `"warnings":[{"why":"x"},`},
		"warning wrong type":     {`"warnings":[`, `"warnings":[{"rule":1},`},
		"explain bad string":     {`"explain":[`, "\"explain\":[{\"rule\":\"a\x01\"},"},
		"explain duplicate key":  {`"explain":[`, `"explain":[{"rule":"a","rule":"b"},`},
		"explain trailing comma": {`"explain":[`, `"explain":[{"rule":"a"},,`},
	} {
		data := strings.Replace(base, edit[0], edit[1], 1)
		if data == base {
			t.Fatalf("%s: the edit did not apply", name)
		}
		_, _, fullErr, runErr := decodeBoth(data)
		if (fullErr == nil) != (runErr == nil) {
			t.Errorf("%s: DecodeFile error %v, DecodeFileToRun error %v", name, fullErr, runErr)
		}
	}
}

// TestFastDecodeGenerated: fastdecode_gen.go is what internal/fastdecodegen
// makes of the Invocation types now (run `go generate ./runtime/invocation` after
// changing them).
func TestFastDecodeGenerated(t *testing.T) {
	want, err := fastdecodegen.Generate("invocation", reflect.TypeOf(Invocation{}))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("fastdecode_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatal("fastdecode_gen.go is stale: run `go generate ./runtime/invocation`")
	}
}

// TestPlainASCII holds the eight-bytes-at-a-time check to the byte-by-byte
// definition, for every byte value at every position of words of
// several lengths.
func TestPlainASCII(t *testing.T) {
	naive := func(b []byte) bool {
		for _, c := range b {
			if c < 0x20 || c >= 0x80 || c == '\\' {
				return false
			}
		}
		return true
	}
	for _, n := range []int{0, 1, 7, 8, 9, 16, 23} {
		for pos := 0; pos < n; pos++ {
			for v := 0; v < 256; v++ {
				b := []byte(strings.Repeat("a", n))
				b[pos] = byte(v)
				if got, want := plainASCII(b), naive(b); got != want {
					t.Fatalf("plainASCII(%q) = %v, want %v", b, got, want)
				}
			}
		}
	}
}

// TestClosingQuote: the first quote not escaped by an odd run of
// backslashes.
func TestClosingQuote(t *testing.T) {
	for _, c := range []struct {
		body string
		want int
	}{
		{`abc"`, 3}, {`"`, 0}, {`a\"b"`, 4}, {`a\\"b"`, 3}, {`a\\\"b"`, 6}, {`\\\\"`, 4}, {`no end`, 6}, {`a\"`, 3},
	} {
		if got := closingQuote([]byte(c.body), 0); got != c.want {
			t.Errorf("closingQuote(%q) = %d, want %d", c.body, got, c.want)
		}
	}
}

// DecodeFileToRun is DecodeFile for a runtime that is about to run the
// invocation: Warnings, which are for people, are checked as strictly
// as DecodeFile checks them (an invocation one rejects, the other
// rejects) but not kept: they are nil. In a fresh process every byte
// kept is paid in page faults on every command's path.
func DecodeFileToRun(f *os.File, path string) (*Invocation, error) {
	return decodeFile(f, path, true)
}

// fastDecode is the fast decoder as Decode runs it, everything kept
// (fastDecodeText).
func fastDecode(data []byte) (inv *Invocation, ok bool) {
	return fastDecodeText(data, string(data), decodeMode{})
}
