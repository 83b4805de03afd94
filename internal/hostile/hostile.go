// Package hostile generates the hostile settings files that bwpolicy must
// refuse quickly, in bounded memory and with a positioned diagnostic: an
// alias bomb, huge scalars and lists, deep nesting. Tests and benchmarks
// share them; they are generated, not stored, because some are 50 MB.
package hostile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Case is one hostile settings file.
type Case struct {
	// Name identifies the case in test and benchmark names.
	Name string
	// Src is the file's content.
	Src []byte
	// Line is the line the refusal must point at.
	Line int
	// Want is a substring of the refusal.
	Want string
}

// aliasBomb is the nested-anchor bomb: nine levels of ten aliases, 10^9
// leaves once expanded, in 372 bytes.
const aliasBomb = `a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h,*h]
`

func repeatLines(head, line string, n int) []byte {
	var b bytes.Buffer
	b.Grow(len(head) + n*len(line))
	b.WriteString(head)
	for i := 0; i < n; i++ {
		b.WriteString(line)
	}
	return b.Bytes()
}

// Cases returns the hostile files. Each is refused: the ones over 1 MiB
// at line 1, the others where the bound is crossed.
func Cases() []Case {
	const mb50 = 50 << 20
	return []Case{
		{"alias_bomb", []byte(aliasBomb), 5, "aliases are expanded"},
		{"scalar_50MB", []byte("cwd: /" + strings.Repeat("a", mb50) + "\n"), 1, "larger than"},
		{"hide_list_50MB", repeatLines("hide:\n", "  - secrets/x\n", mb50/14), 1, "larger than"},
		{"binds_100000", repeatLines("binds:\n", "  - {src: /a}\n", 100_000), 1, "larger than"},
		{"hide_flow_100000", []byte("hide: [" + strings.Repeat("a,", 100_000) + "a]\n"), 1, "too much YAML structure"},
		{"hide_1001", repeatLines("hide:\n", "  - a\n", 1001), 1002, "more than 1000 entries"},
		{"flow_deep_100000", []byte(strings.Repeat("[", 100_000)), 1, "too much YAML structure"},
		{"flow_deep_5000", []byte(strings.Repeat("[", 5000) + strings.Repeat("]", 5000)), 1, "nested deeper than"},
		{"block_deep_5000", []byte(strings.Repeat("- ", 5000) + "x\n"), 1, "nested deeper than"},
		{"mapping_deep_200", indentedMappings(200), 65, "nested deeper than"},
		// Refused deep in the file: the diagnostic's snippet must not
		// cost the lines before it.
		{"lines_100000", repeatLines("", "k: 1\n", 100_000), 10_001, "too much YAML structure"},
	}
}

// indentedMappings is n mappings nested by indentation, one a line.
func indentedMappings(n int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		b.WriteString(strings.Repeat(" ", i))
		b.WriteString("k:\n")
	}
	return b.Bytes()
}

// Rule is one hostile organisation rule file (Rego): evaluating it, or
// a test of it, must cross a bound.
type Rule struct {
	// Name identifies the case.
	Name string
	// Src is the .rego file (package bwpolicy.custom.hostile); the
	// hostile expression is on line Line, in the Rego rule RegoRule.
	Src      string
	Line     int
	RegoRule string
	// Memory says the case crosses the memory bound, Time the time
	// bound; both: whichever comes first (it depends on the machine).
	Memory, Time bool
	// Net says the case needs --policy-net (it is refused without it).
	Net bool
	// Variant says the case is another builtin of a class an earlier
	// case stands for under every command: the command-line tests run it
	// under check alone (the package's own tests run every case).
	Variant bool
}

// ruleSrc is a rule file whose deny rule, on line 4, holds expr.
func ruleSrc(expr string) string {
	return "package bwpolicy.custom.hostile\n\n# the hostile expression\ndeny contains {\"msg\": \"never\"} if {\n\t" + expr + "\n}\n"
}

// tenfold is Rego that makes a string ten times longer n times in a row,
// each step one strings.replace_n call: v0 is seed, v<n> seed's length
// times 10^n.
func tenfold(v, seed, repl string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s0 := %q", v, seed)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "\n\t%s%d := strings.replace_n(%s, %s%d)", v, i, repl, v, i-1)
	}
	return b.String()
}

// Rules returns the hostile rule files. SilentURL is the address of a
// listener that accepts and never answers (for http.send).
func Rules(silentURL string) []Rule {
	return []Rule{
		{Name: "numbers_range_1e9", Src: ruleSrc("count(numbers.range(1, 1000000000)) == 0"), Line: 4, RegoRule: "deny", Memory: true},
		{Name: "array_concat_5e7", Src: ruleSrc("a := numbers.range(1, 25000000)\n\tcount(array.concat(a, a)) == 0"), Line: 4, RegoRule: "deny", Memory: true},
		{Name: "cidr_expand_all", Src: ruleSrc(`count(net.cidr_expand("0.0.0.0/0")) == 0`), Line: 4, RegoRule: "deny", Memory: true, Time: true},
		{Name: "loop_1e10", Src: ruleSrc("every i in numbers.range(1, 100000) { every j in numbers.range(1, 100000) { i * j > 0 } }\n\tfalse"), Line: 4, RegoRule: "deny", Memory: true, Time: true},
		{Name: "replace_n_1e9", Src: ruleSrc(tenfold("s", "aaaaaaaaaa", `{"a": "aaaaaaaaaa"}`, 9) + "\n\tcount(s9) == 0"), Line: 4, RegoRule: "deny", Memory: true, Variant: true},
		{Name: "graph_reachable_3e6", Src: ruleSrc(`g := {sprintf("%d", [i]): [sprintf("%d", [i + 1])] | some i in numbers.range(1, 3000000)}` + "\n\t" + `count(graph.reachable(g, {"1"})) == 0`), Line: 4, RegoRule: "deny", Memory: true, Time: true, Variant: true},
		{Name: "walk_3e6", Src: ruleSrc("x := {i: [i] | some i in numbers.range(1, 3000000)}\n\tcount([p | walk(x, [p, _])]) == 0"), Line: 4, RegoRule: "deny", Memory: true, Time: true, Variant: true},
		{Name: "json_unmarshal_2e7", Src: ruleSrc(tenfold("s", "0,0,", `{"0,": "0,0,0,0,0,0,0,0,0,0,"}`, 7) + "\n\t" + `count(json.unmarshal(concat("", ["[", s7, "0]"]))) == 0`), Line: 4, RegoRule: "deny", Memory: true, Time: true, Variant: true},
		{Name: "yaml_unmarshal_2e7", Src: ruleSrc(tenfold("s", "0,0,", `{"0,": "0,0,0,0,0,0,0,0,0,0,"}`, 7) + "\n\t" + `count(yaml.unmarshal(concat("", ["[", s7, "0]"]))) == 0`), Line: 4, RegoRule: "deny", Memory: true, Time: true, Variant: true},
		{Name: "base64_encode_240MB", Src: ruleSrc(tenfold("s", "aaaaaaaaaaaaaaaaaa", `{"a": "aaaaaaaaaa"}`, 7) + "\n\tcount(base64.encode(s7)) == 0"), Line: 4, RegoRule: "deny", Memory: true, Variant: true},
		{Name: "jwt_key_50MB", Src: ruleSrc(tenfold("k", strings.Repeat("{},", 17), `{"{},": "{},{},{},{},{},{},{},{},{},{},"}`, 6) + "\n\t" + `io.jwt.decode_verify("eyJhbGciOiJSUzI1NiJ9.e30.eA", {"cert": concat("", ["{\"keys\": [", k6, "{}]}"])})[0]`), Line: 4, RegoRule: "deny", Memory: true, Time: true, Variant: true},
		{Name: "http_send_silent", Src: ruleSrc(`http.send({"method": "GET", "url": "` + silentURL + `", "timeout": "1h"}).status_code == 0`), Line: 4, RegoRule: "deny", Time: true, Net: true},
	}
}

// Profile is one hostile custom profile (CUE): loading it must cross a
// bound.
type Profile struct {
	// Name identifies the case; the file is Name + ".cue".
	Name string
	Src  []byte
	// Memory, Time: the bound it crosses (both: whichever comes first).
	// Neither: it is refused (Refusal), before or by CUE.
	Memory, Time bool
	// Refusal is a substring of the refusal of a case that crosses no
	// bound, at line Line, a finding (exit 1 under compile and check).
	Refusal string
	Line    int
	// MemoryMiB is the memory bound the tests use; 0 means TestMemoryMiB.
	MemoryMiB int
	// Variant: as Rule.Variant (the command-line tests run it under
	// check alone).
	Variant bool
}

// TestMemoryMiB is the memory bound the tests of the hostile profiles
// and rules use: low, so that a case crosses it in a fraction of a second.
const TestMemoryMiB = 64

// Bound is the memory bound the tests use for p.
func (p Profile) Bound() int {
	if p.MemoryMiB > 0 {
		return p.MemoryMiB
	}
	return TestMemoryMiB
}

// Profiles returns the hostile profiles: a comprehension over
// list.Range(0, 1e8, 1), a struct of 60,000 fields (0.9 MB, which CUE
// takes half a minute over) and one of 300,000 (4.9 MB, over the size
// bound); a string doubled 40 times (one allocation a step), a list
// doubled with list.Concat, a comprehension three levels deep (10^9
// elements) and a struct nested 20,000 deep.
func Profiles() []Profile {
	return []Profile{
		{Name: "list_range_1e8", Src: []byte("import \"list\"\n\nname: \"list_range_1e8\"\nx: [for i in list.Range(0, 100000000, 1) {i}]\n"), Memory: true, Time: true},
		{Name: "struct_60000", Src: fieldsStruct("struct_60000", 60_000), Memory: true, Time: true},
		{Name: "string_doubling", Src: doubling("string_doubling", "", `"x"`, "a%d: a%d + a%d\n", 40), Memory: true, Variant: true},
		{Name: "list_concat_doubling", Src: doubling("list_concat_doubling", "import \"list\"\n\n", "[1]", "a%d: list.Concat([a%d, a%d])\n", 40), Memory: true, Time: true, Variant: true},
		{Name: "comprehension_3_levels", Src: []byte("import \"list\"\n\nname: \"comprehension_3_levels\"\nr: list.Range(0, 1000, 1)\nx: [for i in r for j in r for k in r {[i, j, k]}]\n"), Memory: true, Time: true, Variant: true},
		// CUE refuses it itself, given the memory its parser needs
		// (under 64 MiB the parser's stack crosses the bound first).
		{Name: "struct_deep_20000", Src: []byte("name: \"struct_deep_20000\"\nx: " + strings.Repeat("a: {", 20_000) + "b: 1" + strings.Repeat("}", 20_000) + "\n"),
			Refusal: "maximum nesting depth", Line: 2, MemoryMiB: 128, Variant: true},
		{Name: "struct_300000", Src: fieldsStruct("struct_300000", 300_000), Refusal: "larger than", Line: 1},
	}
}

// doubling is a profile whose fields a1 … a<n> are each the one before
// doubled (field, a format of the field's index and the previous one
// twice): a0 is seed, a<n> 2^n times it.
func doubling(name, head, seed, field string, n int) []byte {
	var b bytes.Buffer
	b.WriteString(head + "name: \"" + name + "\"\na0: " + seed + "\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, field, i, i-1, i-1)
	}
	return b.Bytes()
}

// fieldsStruct is a profile with a struct of n fields.
func fieldsStruct(name string, n int) []byte {
	var b bytes.Buffer
	b.WriteString("name: \"" + name + "\"\nx: {\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  f%d: %d\n", i, i)
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// BudgetCase is one directory of untrusted files against the budget of
// a directory (bounded.Budget): Files files of Size bytes each, Over
// when the budget must refuse it.
type BudgetCase struct {
	Name        string
	Files, Size int
	Over        bool
}

// BudgetCases are the directories a budget of 8 MiB and maxFiles files
// must read (7 files of 1,000,000 bytes) or refuse (9 of them; maxFiles
// + 1 small ones).
func BudgetCases(maxFiles int) []BudgetCase {
	return []BudgetCase{
		{"within", 7, 1_000_000, false},
		{"bytes", 9, 1_000_000, true},
		{"files", maxFiles + 1, 100, true},
	}
}

// WriteDir writes c's files into dir, file i named name(i) and starting
// with head(i), padded to c.Size bytes with a comment of 'x's after it.
func (c BudgetCase) WriteDir(dir string, name, head func(int) string) error {
	for i := 0; i < c.Files; i++ {
		src := head(i)
		src += strings.Repeat("x", c.Size-len(src)-1) + "\n"
		if err := os.WriteFile(filepath.Join(dir, name(i)), []byte(src), 0o644); err != nil {
			return err
		}
	}
	return nil
}
