package compiler

import (
	"bytes"
	"encoding/json"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// Marshal encodes an invocation deterministically: two-space indent,
// map keys sorted, no HTML escaping, a final newline.
func Marshal(inv *invocation.Invocation) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(inv); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func sortedMapKeys(m map[string]string) []string {
	keys := make(map[string]bool, len(m))
	for k := range m {
		keys[k] = true
	}
	return sortedKeys(keys)
}
