package invocation

import "strings"

// Within tells whether p is dir or lies below it (both clean and
// absolute).
func Within(p, dir string) bool {
	if dir == "/" {
		return true
	}
	return strings.HasPrefix(p, dir) && (len(p) == len(dir) || p[len(dir)] == '/')
}
