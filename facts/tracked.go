package facts

import (
	"bytes"
	"path"
	"strings"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/settings"
)

// This file finds hidden paths that git tracks: masking the file in the
// work tree does not hide the copy in the repository's objects, which
// `git show HEAD:.env` prints. Compile says so; it reads the index
// itself (ReadIndexPaths) and runs nothing.

// Bounds of the tracked-file check: the repositories looked at, the size
// of an index read, the depth walked up to find a repository.
const (
	maxTrackedRepos = 16
	maxIndexBytes   = 64 << 20
	maxRepoDepth    = 64
)

// Tracked is a hidden path git tracks, or that holds tracked files.
type Tracked struct {
	// Repo is the work tree's top directory.
	Repo string
	// Files are the tracked paths (relative to Repo) at or under the
	// hidden path, at most three; Count is how many there are.
	Files []string
	Count int
	// Hidden is the hidden path (as listed) and Why its property; for a
	// hide entry (H4) HideIndex is its index.
	Hidden    string
	Why       Reason
	HideIndex int
}

// repoOf returns the work tree top and the git directory of the
// repository holding dir ("" when none): the nearest .git directory, or
// .git file with a "gitdir:" line, at or above dir. It reads the file
// system directly, recording nothing (the result only warns); known
// caches each directory's answer.
func (g *gatherer) repoOf(dir string, known map[string][2]string) (top, gitDir string) {
	var walked []string
	defer func() {
		for _, d := range walked {
			known[d] = [2]string{top, gitDir}
		}
	}()
	for d, i := dir, 0; i < maxRepoDepth; d, i = path.Dir(d), i+1 {
		if r, ok := known[d]; ok {
			return r[0], r[1]
		}
		walked = append(walked, d)
		dot := path.Join(d, ".git")
		switch g.fs.Lstat(dot).Kind {
		case invocation.KindDir:
			return d, dot
		case invocation.KindFile:
			return d, gitFileTarget(g.fs, d, dot)
		}
		if d == "/" {
			break
		}
	}
	return "", ""
}

// gitFileTarget reads the "gitdir: X" line of a .git file in dir ("" when
// it has none).
func gitFileTarget(fsys FS, dir, dot string) string {
	b, err := fsys.ReadFile(dot, 4096)
	if err != nil {
		return ""
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	target, ok := strings.CutPrefix(strings.TrimSpace(string(line)), "gitdir:")
	if !ok {
		return ""
	}
	target = strings.TrimSpace(target)
	if !path.IsAbs(target) {
		target = path.Join(dir, target)
	}
	return path.Clean(target)
}

// indexPaths reads the index of gitDir ("" entries when unreadable):
// SHA-256 when the repository's config (or its common directory's) says
// objectformat = sha256.
func (g *gatherer) indexPaths(gitDir string) []string {
	data, err := g.fs.ReadFile(path.Join(gitDir, "index"), maxIndexBytes+1)
	if err != nil || len(data) > maxIndexBytes {
		return nil
	}
	hashLen := 20
	common := gitDir
	if b, err := g.fs.ReadFile(path.Join(gitDir, "commondir"), 4096); err == nil {
		c := strings.TrimSpace(string(b))
		if !path.IsAbs(c) {
			c = path.Join(gitDir, c)
		}
		common = path.Clean(c)
	}
	if cfg, err := g.fs.ReadFile(path.Join(common, "config"), 1<<20); err == nil {
		if bytes.Contains(bytes.ToLower(bytes.ReplaceAll(cfg, []byte(" "), nil)), []byte("objectformat=sha256")) {
			hashLen = 32
		}
	}
	paths, err := ReadIndexPaths(data, hashLen)
	if err != nil {
		return nil
	}
	return paths
}

// trackedHidden lists the hidden paths (each hide entry's matches, and
// the built-in ones) that a repository's index lists, or lists files
// under: the repositories holding the working directory, each hide
// entry's base directory and each hidden path, up to maxTrackedRepos.
// A hide glob is also matched against the index itself, so a tracked
// file deleted from the work tree is found too.
func (g *gatherer) trackedHidden(s *settings.Settings, f *Facts, home string) []Tracked {
	type repo struct {
		top   string
		paths []string
	}
	var repos []*repo
	byTop := map[string]*repo{}
	known := map[string][2]string{}
	find := func(dir string) *repo {
		top, gitDir := g.repoOf(dir, known)
		if top == "" || gitDir == "" {
			return nil
		}
		if r, ok := byTop[top]; ok {
			return r
		}
		if len(repos) == maxTrackedRepos {
			return nil
		}
		r := &repo{top: top, paths: g.indexPaths(gitDir)}
		byTop[top] = r
		repos = append(repos, r)
		return r
	}
	if f.Cwd.Exists {
		find(f.Cwd.Real)
	}
	for _, e := range s.Hide {
		base, _ := hideBase(e, home, f.Cwd.Real)
		find(base)
	}
	for _, h := range f.Hidden {
		if h.MirrorOf == "" && h.Why != ReasonHostSocket {
			find(path.Dir(h.Path))
		}
	}
	var out []Tracked
	for _, r := range repos {
		if len(r.paths) == 0 {
			continue
		}
		seen := map[string]bool{}
		for _, h := range f.Hidden {
			if h.MirrorOf != "" || seen[h.Path] || !Within(h.Path, r.top) || h.Path == r.top {
				continue
			}
			seen[h.Path] = true
			rel := strings.TrimPrefix(h.Path, r.top+"/")
			if t := collect(r.paths, func(p string) bool { return p == rel || strings.HasPrefix(p, rel+"/") }); t.Count > 0 {
				t.Repo, t.Hidden, t.Why, t.HideIndex = r.top, h.Entry, h.Why, h.HideIndex
				if h.Why == ReasonHide && h.HideIndex < len(s.Hide) {
					t.Hidden = s.Hide[h.HideIndex]
				}
				out = append(out, t)
			}
		}
		// Hide globs against the index: tracked files gone from the work
		// tree (never in f.Hidden) are still in the repository.
		for i, e := range s.Hide {
			base, pattern := hideBase(e, home, f.Cwd.Real)
			comps := strings.Split(strings.Trim(pattern, "/"), "/")
			if !Within(base, r.top) {
				continue
			}
			prefix := strings.TrimPrefix(strings.TrimPrefix(base, r.top), "/")
			t := collect(r.paths, func(p string) bool {
				rel := p
				if prefix != "" {
					var ok bool
					if rel, ok = strings.CutPrefix(p, prefix+"/"); !ok {
						return false
					}
				}
				return globPrefixMatch(comps, strings.Split(rel, "/")) && !seen[path.Join(r.top, p)] && !underSeen(seen, path.Join(r.top, p))
			})
			if t.Count > 0 {
				t.Repo, t.Hidden, t.Why, t.HideIndex = r.top, e, ReasonHide, i
				out = append(out, t)
			}
		}
	}
	return out
}

func underSeen(seen map[string]bool, p string) bool {
	for d := path.Dir(p); d != "/" && d != "."; d = path.Dir(d) {
		if seen[d] {
			return true
		}
	}
	return false
}

// collect gathers the index paths that match: the first three and the
// count.
func collect(paths []string, match func(string) bool) Tracked {
	var t Tracked
	for _, p := range paths {
		if match(p) {
			if t.Count < 3 {
				t.Files = append(t.Files, p)
			}
			t.Count++
		}
	}
	return t
}

// globPrefixMatch tells whether the glob components match the path's
// components or a leading part of them (a hidden directory holds its
// tracked files): "**" matches any number of components, the others one
// each (path.Match).
func globPrefixMatch(glob, comps []string) bool {
	if len(glob) == 0 {
		return true // the glob matched a directory above the rest
	}
	if len(comps) == 0 {
		return false
	}
	if glob[0] == "**" {
		for i := 0; i <= len(comps); i++ {
			if globPrefixMatch(glob[1:], comps[i:]) {
				return true
			}
		}
		return false
	}
	ok, err := path.Match(glob[0], comps[0])
	return err == nil && ok && globPrefixMatch(glob[1:], comps[1:])
}
