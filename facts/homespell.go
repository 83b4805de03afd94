package facts

import (
	"path"
	"strings"
)

// homeSpellings are the prefixes that name the home directory in a
// settings path (hide, binds, home.allow): a shell's habits, which a
// user must never find silently taken for a file named "~" or "$HOME"
// in the working directory.
var homeSpellings = []string{"${HOME}", "$HOME", "~"}

// CanonicalHomePath writes a settings path that starts with a spelling
// of the home directory ("~", "~/", "$HOME", "${HOME}", followed by the
// end or a slash) as "~/" and the rest, cleaned ("~/." and "~//" are
// "~/", the home as a whole); a trailing slash (a directory-only hide
// glob) is kept. An absolute path is cleaned the same way. Anything else
// is returned as it is. Every stage that reads these paths sees the one
// spelling, so that every spelling of a path is judged alike.
func CanonicalHomePath(p string) string {
	for _, sp := range homeSpellings {
		rest, ok := strings.CutPrefix(p, sp)
		if !ok || (rest != "" && rest[0] != '/') {
			continue
		}
		rel := cleanRel(rest)
		if rel == "" {
			return "~/"
		}
		return "~/" + rel + trailingSlash(rest)
	}
	if path.IsAbs(p) {
		c := path.Clean(p)
		if c != "/" {
			c += trailingSlash(p)
		}
		return c
	}
	return p
}

// cleanRel is rest ("/a/./b", "") cleaned and relative ("a/b"; "" for
// the directory itself).
func cleanRel(rest string) string {
	c := path.Clean("/" + rest)
	return strings.TrimPrefix(c, "/")
}

func trailingSlash(p string) string {
	if strings.HasSuffix(p, "/") {
		return "/"
	}
	return ""
}
