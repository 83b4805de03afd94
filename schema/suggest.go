package schema

import (
	"encoding/json"
	"sort"
	"strings"
	"sync"

	"github.com/bwpolicy/bwpolicy/diag"
)

var (
	rawOnce     sync.Once
	rawSettings map[string]any
)

// knownKeys returns the keys settings.schema.json allows in the object
// at path (keys and indexes into the settings), sorted; nil when the
// schema does not say (the path leaves it, or allows any key).
func knownKeys(path []any) []string {
	rawOnce.Do(func() { _ = json.Unmarshal(SettingsJSON, &rawSettings) })
	node := resolve(rawSettings)
	for _, p := range path {
		switch k := p.(type) {
		case string:
			props, _ := node["properties"].(map[string]any)
			next, _ := props[k].(map[string]any)
			node = resolve(next)
		case int:
			next, _ := node["items"].(map[string]any)
			node = resolve(next)
		default:
			return nil
		}
		if node == nil {
			return nil
		}
	}
	props, _ := node["properties"].(map[string]any)
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// resolve follows a local "$ref": "#/$defs/NAME".
func resolve(node map[string]any) map[string]any {
	ref, ok := node["$ref"].(string)
	if !ok {
		return node
	}
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok {
		return nil
	}
	defs, _ := rawSettings["$defs"].(map[string]any)
	def, _ := defs[name].(map[string]any)
	return def
}

// suggestKey is `; did you mean "KEY"?` for an unknown key at path, when
// a key the schema allows there is close to it; "" else.
func suggestKey(name string, path []any) string {
	if strings.HasPrefix(name, "plugin:") {
		return ""
	}
	return diag.DidYouMean(name, knownKeys(path))
}
