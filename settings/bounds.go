package settings

import (
	"bytes"
	"fmt"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/token"

	"github.com/bwpolicy/bwpolicy/diag"
)

// Bounds on a settings file, checked before the YAML is parsed or its
// aliases expanded, so that no input costs more than a fraction of a
// second and a few tens of MiB (a settings file is a few KiB; a Hermes
// config.yaml a few tens). Every refusal is positioned.
const (
	// MaxFileSize is the largest settings file read, in bytes.
	MaxFileSize = 1 << 20
	// MaxStructure bounds the YAML indicators and line breaks of a file
	// (each can start a token), so the YAML lexer and parser, whose cost
	// grows with the number of tokens, stay cheap.
	MaxStructure = 20_000
	// MaxDepth bounds the nesting of collections (a Hermes config needs
	// seven levels).
	MaxDepth = 64
	// MaxNodes bounds the values of the file with every alias expanded.
	MaxNodes = 50_000
	// MaxEntries bounds the entries of one list or mapping.
	MaxEntries = 1_000
)

// utf8BOM is the byte order mark YAML allows at the start of a stream.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

func boundDiag(file string, line, col int, format string, args ...any) diag.Diagnostic {
	return diag.Diagnostic{Severity: diag.Error, Rule: "yaml", Pos: diag.Pos{File: file, Line: line, Col: col},
		Summary: fmt.Sprintf(format, args...)}
}

// tooLarge is the refusal of a file over MaxFileSize.
func tooLarge(file string) diag.Diagnostic {
	return boundDiag(file, 1, 1, "settings file larger than %d bytes (1 MiB); not a settings file", MaxFileSize)
}

// checkStructure counts the bytes that can start a YAML token, without
// parsing (quotes and comments are counted too: an over-estimate that
// only a file far larger than any settings file reaches).
func checkStructure(file string, src []byte) (diag.Diagnostic, bool) {
	n, line := 0, 1
	lineStart := 0
	for i, c := range src {
		switch c {
		case '\n':
			line++
			lineStart = i + 1
		case '[', ']', '{', '}', ',', ':', '-', '?', '&', '*', '!', '|', '>', '#', '%', '\'', '"', '@', '`':
		default:
			continue
		}
		n++
		if n > MaxStructure {
			return boundDiag(file, line, i-lineStart+1,
				"too much YAML structure (over %d indicators and lines); settings files are small", MaxStructure), false
		}
	}
	return diag.Diagnostic{}, true
}

// checkDepth tokenizes src and bounds the nesting of flow collections
// ([...], {...}) plus block collections (a stack of indentation columns,
// as YAML's own indentation rules keep), before the parser, whose cost
// grows with the square of the depth, sees it.
func checkDepth(file string, src []byte) (diag.Diagnostic, bool) {
	flow := 0
	var block []int // columns of the open block collections
	var prev *token.Token
	for _, tk := range lexer.Tokenize(string(src)) {
		if tk == nil || tk.Position == nil {
			continue
		}
		col := tk.Position.Column
		switch tk.Type {
		case token.SequenceStartType, token.MappingStartType:
			flow++
		case token.SequenceEndType, token.MappingEndType:
			if flow > 0 {
				flow--
			}
		case token.SequenceEntryType, token.MappingValueType, token.MappingKeyType:
			if flow > 0 {
				break
			}
			if tk.Type == token.MappingValueType && prev != nil && prev.Position != nil && prev.Position.Line == tk.Position.Line {
				col = prev.Position.Column // the key's column
			}
			for len(block) > 0 && block[len(block)-1] > col {
				block = block[:len(block)-1]
			}
			if len(block) == 0 || block[len(block)-1] < col {
				block = append(block, col)
			}
		}
		if flow+len(block) > MaxDepth {
			return boundDiag(file, tk.Position.Line, tk.Position.Column,
				"YAML nested deeper than %d levels", MaxDepth), false
		}
		prev = tk
	}
	return diag.Diagnostic{}, true
}

// counter bounds a parsed file's values with every alias expanded,
// without expanding them: an anchor's size is computed once, where it is
// defined, and an alias adds that size.
type counter struct {
	file    string
	anchors map[string]int
	total   int
	refused *diag.Diagnostic
}

// checkNodes refuses a file whose values, aliases expanded, exceed
// MaxNodes, or with a list or mapping of more than MaxEntries entries.
func checkNodes(file string, f *ast.File) (diag.Diagnostic, bool) {
	c := &counter{file: file, anchors: map[string]int{}}
	for _, d := range f.Docs {
		c.size(d.Body, 0)
		if c.refused != nil {
			return *c.refused, false
		}
	}
	return diag.Diagnostic{}, true
}

func (c *counter) refuse(n ast.Node, format string, args ...any) int {
	if c.refused == nil {
		line, col := 1, 1
		if tk := n.GetToken(); tk != nil && tk.Position != nil {
			line, col = tk.Position.Line, tk.Position.Column
		}
		d := boundDiag(c.file, line, col, format, args...)
		c.refused = &d
	}
	return MaxNodes + 1
}

// size returns the number of values node stands for, aliases expanded,
// and adds it to the running total. depth bounds the recursion (the
// token check already bounded the nesting; this is a second guard).
func (c *counter) size(node ast.Node, depth int) int {
	if node == nil || c.refused != nil {
		return 0
	}
	if depth > 4*MaxDepth {
		return c.refuse(node, "YAML nested deeper than %d levels", MaxDepth)
	}
	self := 1 // what this node adds to the total
	n := 0    // what it stands for, its children included
	switch t := node.(type) {
	case *ast.MappingNode:
		if len(t.Values) > MaxEntries {
			return c.refuse(t.Values[MaxEntries], "more than %d entries in one mapping; settings files are small", MaxEntries)
		}
		for _, v := range t.Values {
			n += c.size(v, depth+1)
		}
	case *ast.SequenceNode:
		if len(t.Values) > MaxEntries {
			return c.refuse(t.Values[MaxEntries], "more than %d entries in one list; settings files are small", MaxEntries)
		}
		for _, v := range t.Values {
			n += c.size(v, depth+1)
		}
	case *ast.MappingValueNode:
		return c.size(t.Key, depth+1) + c.size(t.Value, depth+1)
	case *ast.MappingKeyNode:
		return c.size(t.Value, depth+1)
	case *ast.TagNode:
		return c.size(t.Value, depth+1)
	case *ast.AnchorNode:
		n = c.size(t.Value, depth+1)
		if t.Name != nil && t.Name.GetToken() != nil {
			c.anchors[t.Name.GetToken().Value] = n
		}
		return n
	case *ast.AliasNode:
		if t.Value != nil && t.Value.GetToken() != nil {
			self = max(c.anchors[t.Value.GetToken().Value], 1)
		}
		n = self - 1
	}
	c.total += self
	if c.total > MaxNodes {
		return c.refuse(node, "more than %d YAML values once aliases are expanded; settings files are small", MaxNodes)
	}
	return n + 1
}

// stripBOM drops a UTF-8 byte order mark at the start of src.
func stripBOM(src []byte) []byte {
	return bytes.TrimPrefix(src, utf8BOM)
}
