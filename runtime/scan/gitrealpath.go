package scan

import (
	"errors"
	"os"
	"path"
	"strings"
)

// maxRealpathHops bounds the symlinks one realpath follows (the
// kernel's own bound is 40).
const maxRealpathHops = 40

var errRealpath = errors.New("too many symbolic links, or not found")

// realpath is filepath.EvalSymlinks with every resolved prefix kept for
// the rest of the scan (the sandbox is dead: nothing changes meanwhile):
// a thousand links through the same deep directories cost one lstat per
// directory, not one per directory per link.
func (s *gitScan) realpath(p string) (string, error) {
	if s.real == nil {
		s.real = map[string]string{}
	}
	hops := 0
	return s.resolveFrom("/", p, &hops)
}

// resolveFrom resolves rel (absolute, or relative to the physical
// directory cur).
func (s *gitScan) resolveFrom(cur, rel string, hops *int) (string, error) {
	if path.IsAbs(rel) {
		cur = "/"
	}
	for _, c := range strings.Split(rel, "/") {
		switch c {
		case "", ".":
			continue
		case "..":
			cur = path.Dir(cur)
			continue
		}
		next := path.Join(cur, c)
		if r, ok := s.real[next]; ok {
			if r == "" {
				return "", errRealpath
			}
			cur = r
			continue
		}
		fi, err := os.Lstat(next)
		if err != nil {
			s.real[next] = ""
			return "", err
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			s.real[next] = next
			cur = next
			continue
		}
		if *hops++; *hops > maxRealpathHops {
			return "", errRealpath
		}
		t, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		r, err := s.resolveFrom(cur, t, hops)
		if err != nil {
			return "", err
		}
		s.real[next] = r
		cur = r
	}
	return cur, nil
}
