package settings

import (
	"encoding/json"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// yamlNumber is the number syntax of YAML 1.2's core schema (less the
// .inf and .nan the YAML library already reads). The library follows
// YAML 1.1 here and reads 1e20 (no dot) and integers past 64 bits as
// strings; a limit written that way must be reported as the number out
// of range it is, not as "got string".
var yamlNumber = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// plainNumbers turns the plain (unquoted) scalars of node that are YAML
// 1.2 numbers but were decoded as strings into json.Number, in v (the
// normalized value of node), and returns the result.
func plainNumbers(node ast.Node, v any) any {
	switch n := node.(type) {
	case *ast.AnchorNode:
		return plainNumbers(n.Value, v)
	case *ast.StringNode:
		s, ok := v.(string)
		if ok && n.Token != nil && n.Token.Type == token.StringType && yamlNumber.MatchString(s) {
			return json.Number(canonical(s))
		}
	case *ast.SequenceNode:
		if list, ok := v.([]any); ok && len(list) == len(n.Values) {
			for i, e := range n.Values {
				list[i] = plainNumbers(e, list[i])
			}
		}
	case *ast.MappingNode:
		for _, mv := range n.Values {
			plainNumbers(mv, v)
		}
	case *ast.MappingValueNode:
		m, ok := v.(map[string]any)
		if !ok || n.Key == nil || n.Key.GetToken() == nil {
			break
		}
		k := n.Key.GetToken().Value
		if e, ok := m[k]; ok {
			m[k] = plainNumbers(n.Value, e)
		}
	}
	return v
}

// canonical writes an integral number with a small exponent (1e3) as an
// integer (1000), so it decodes into an integer setting; anything else is
// left as written (a huge exponent is never expanded).
func canonical(s string) string {
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return s
	}
	exp, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
	if err != nil || exp < -18 || exp > 18 {
		return s
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok || !r.IsInt() {
		return s
	}
	return r.Num().String()
}
