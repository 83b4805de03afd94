package compiler

import (
	"bytes"
	"encoding/json"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// Marshal encodes an invocation deterministically (map keys sorted, no
// HTML escaping, a final newline) in a layout of one line per thing a
// reader looks for: each top-level field, each field of a top-level
// object, each element of a top-level array (a precondition, an
// explanation row) and each bwrap option with its operands. Indenting
// every value instead (json.Indent) makes a large home layout's
// invocation 40% larger, and bwrun reads it on every command.
func Marshal(inv *invocation.Invocation) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(inv); err != nil {
		return nil, err
	}
	return layout(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), nil
}

// layout lays compact JSON out as Marshal describes: a line break (and
// two spaces per level) after the opening bracket and each comma of the
// top-level object, of an object or array that is a top-level value,
// and, in an array inside those whose first element is an option (a
// string starting with "--": bwrap's args), before each option and
// around the brackets.
func layout(compact []byte) []byte {
	out := make([]byte, 0, len(compact)+len(compact)/16)
	var stack []byte // the open containers: '{' or '[', or 'o': an array of options
	option := func(at int) bool { return bytes.HasPrefix(compact[at:], []byte(`"--`)) }
	newline := func(depth int) {
		out = append(out, '\n')
		for range depth {
			out = append(out, ' ', ' ')
		}
	}
	// broken: a container at this depth gets a line per element.
	broken := func(depth int) bool { return depth <= 2 || stack[depth-1] == 'o' }
	inString, escaped := false, false
	for i := 0; i < len(compact); i++ {
		c := compact[i]
		if inString {
			out = append(out, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		depth := len(stack)
		switch c {
		case '"':
			if depth == 3 && stack[2] == 'o' && option(i) && compact[i-1] == ',' {
				newline(depth)
			}
			inString = true
			out = append(out, c)
		case '{', '[':
			if c == '[' && depth == 2 && option(i+1) {
				c = 'o'
			}
			stack = append(stack, c)
			if c == 'o' {
				c = '['
			}
			out = append(out, c)
			if broken(depth+1) && compact[i+1] != '}' && compact[i+1] != ']' {
				newline(depth + 1)
			}
		case '}', ']':
			if broken(depth) && compact[i-1] != '{' && compact[i-1] != '[' {
				newline(depth - 1)
			}
			stack = stack[:depth-1]
			out = append(out, c)
		case ',':
			out = append(out, c)
			if depth <= 2 {
				newline(depth)
			}
		case ':':
			out = append(out, c)
			if depth <= 2 {
				out = append(out, ' ')
			}
		default:
			out = append(out, c)
		}
	}
	return append(out, '\n')
}

func sortedMapKeys(m map[string]string) []string {
	keys := make(map[string]bool, len(m))
	for k := range m {
		keys[k] = true
	}
	return sortedKeys(keys)
}
