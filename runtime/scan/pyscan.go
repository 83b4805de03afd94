package scan

// This file is the post-command scan of the python user site
// directories (H9): what a command leaves there that every later python
// runs at start.

import (
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/bwpolicy/bwpolicy/hazard/git"
	"github.com/bwpolicy/bwpolicy/hazard/startup"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// Bounds of the python site scan: past one, the invocation is reported
// stale (fail closed), never skipped silently.
const (
	// maxPythonVersionDirs bounds the version directories of one lib
	// directory (python3.11, pypy3.10, …).
	maxPythonVersionDirs = 64
	// maxPythonSiteEntries bounds the entries of one site directory (and
	// of its __pycache__) looked at.
	maxPythonSiteEntries = 20_000
)

// pythonHomes are the home directories whose user site python reads: the
// sandbox's HOME (the profile home under home_mode: profile) and the
// host's, each once.
func pythonHomes(inv *invocation.Invocation, home string) []string {
	var out []string
	for _, h := range []string{inv.Env.Set["HOME"], home} {
		if path.IsAbs(h) && (len(out) == 0 || out[0] != path.Clean(h)) {
			out = append(out, path.Clean(h))
		}
	}
	return out
}

// scanPythonSites sets aside, in every user site directory of homes
// that a command could have written (startup.PythonUserSiteDirs, symlinks
// followed as python follows them), what python would run at its next
// start and a command left there: a .pth file with a code line
// (startup.PthRunsCode; one larger than maxGitFile or unreadable counts as code),
// a usercustomize or sitecustomize module in any form,
// and a module that a .pth file left in place imports. Each is a finding
// only when it is writable in the sandbox and it changed since the
// compile, or a directory on the way from the home did (a directory
// moved in changes its own status, not its files') and the compile did
// not record it there (an existing hook it could not bind, behind a
// symlink, is recorded as a precondition): what the compile bound
// read-only, and the user's own unchanged files, stay.
func (s *gitScan) scanPythonSites(homes []string, pre []invocation.Precondition) {
	s.recorded = map[string]bool{}
	for _, p := range pre {
		if !invocation.Missing(p.Kind) {
			s.recorded[p.Path] = true
		}
	}
	var buf []byte // allocated when a lib directory exists
	var de git.DirEntries
	for _, h := range homes {
		base := path.Join(h, ".local")
		for _, lib := range startup.PythonLibDirs(h) {
			if fi, err := os.Stat(lib); err != nil || !fi.IsDir() {
				continue
			}
			if buf == nil {
				buf = make([]byte, 32<<10)
			}
			if err := listFollowing(lib, buf, &de); err != nil {
				continue
			}
			var versions []string
			for i, n := range de.Names {
				if startup.PythonVersionDir(n) && (de.IsDir[i] || linkIndex(&de, i)) {
					versions = append(versions, n)
				}
			}
			if len(versions) > maxPythonVersionDirs {
				s.stale(lib, fmt.Sprintf("the python site scan found more than %d version directories in %s (H9): their .pth files and usercustomize were not checked; review before running python with this home", maxPythonVersionDirs, lib))
				continue
			}
			for _, v := range versions {
				site := path.Join(lib, v, "site-packages")
				moved := s.changed(base) || s.changed(lib) || s.changed(path.Join(lib, v)) || s.changed(site)
				s.scanSite(site, moved, buf, &de)
			}
		}
	}
}

// linkIndex reports whether entry i of de is a symlink (python follows
// it; stat tells later whether it leads to a directory).
func linkIndex(de *git.DirEntries, i int) bool {
	for _, l := range de.Links {
		if l == i {
			return true
		}
	}
	return false
}

// listFollowing lists dir as python does, following symlinks (the
// directory's own and its parents').
func listFollowing(dir string, buf []byte, de *git.DirEntries) error {
	return listDir(dir, 0, buf, de)
}

// scanSite checks one site directory; moved is true when a directory on
// the way to it changed since the compile.
func (s *gitScan) scanSite(site string, moved bool, buf []byte, de *git.DirEntries) {
	if err := listFollowing(site, buf, de); err != nil {
		return
	}
	if len(de.Names) > maxPythonSiteEntries {
		s.stale(site, fmt.Sprintf("the python site scan stopped at %s, more than %d entries (H9): its .pth files and usercustomize were not checked; review before running python with this home", site, maxPythonSiteEntries))
		return
	}
	names := de.Names // de is not listed into again below
	var mods []string
	var pths []pthPaths
	cache := false
	for _, n := range names {
		p := site + "/" + n
		switch {
		case n == "__pycache__":
			cache = true
		case startup.PythonCustomize(n):
			s.pythonFinding(p, moved, "a python start-up module (site.py imports "+n+" at every python start)")
		case startup.PthFile(n):
			// Every .pth is read: its path lines may add a directory
			// holding usercustomize (scanPthDirs); one bound read-only is
			// the user's hook, read for the modules it imports.
			candidate := s.pythonCandidate(p, moved)
			b, err := readSmall(p) // as site.py reads it, following a symlink
			code := err != nil || startup.PthRunsCode(b)
			if code && candidate && s.pythonFinding(p, moved, "a python .pth file with a code line (site.py runs it at every python start)") {
				continue
			}
			if err != nil {
				continue
			}
			if code {
				mods = append(mods, startup.PthModules(b)...)
			}
			if dirs := startup.PthPaths(b); len(dirs) > 0 {
				pths = append(pths, pthPaths{pth: p, dirs: dirs, candidate: candidate})
			}
		}
	}
	s.scanPthDirs(site, pths, buf)
	// The modules the .pth files left in place import at every start.
	if len(mods) > 0 {
		for _, n := range names {
			if n != "__pycache__" && !startup.PythonCustomize(n) && !startup.PthFile(n) && startup.PythonModuleEntry(n, mods) {
				s.pythonFinding(path.Join(site, n), moved, "a module a python .pth file imports at every python start")
			}
		}
	}
	if !cache {
		return
	}
	pc := path.Join(site, "__pycache__")
	var cde git.DirEntries
	if err := listFollowing(pc, buf, &cde); err != nil {
		return
	}
	if len(cde.Names) > maxPythonSiteEntries {
		s.stale(pc, fmt.Sprintf("the python site scan stopped at %s, more than %d entries (H9); review before running python with this home", pc, maxPythonSiteEntries))
		return
	}
	for _, n := range cde.Names {
		if startup.PythonCustomize(n) || startup.PythonModuleEntry(n, mods) {
			s.pythonFinding(path.Join(pc, n), moved, "a compiled python start-up module (python loads it instead of its source)")
		}
	}
}

// pythonCandidate reports whether a command could have put p there: it
// is writable, and it or a directory on its way changed since the
// compile (the latter unless the compile recorded p).
func (s *gitScan) pythonCandidate(p string, moved bool) bool {
	return s.writable(p) && (s.changed(p) || moved && !s.wasRecorded(p))
}

// pythonFinding sets p aside when pythonCandidate says a command could
// have put it there. It reports whether p was set aside or made the run
// stale.
func (s *gitScan) pythonFinding(p string, moved bool, why string) bool {
	if !s.pythonCandidate(p, moved) {
		return false
	}
	before := len(s.rep.StalePaths)
	s.setAside(p, why)
	return len(s.rep.StalePaths) > before
}

// wasRecorded reports whether the compile recorded p as existing, at
// its path or where its symlinks lead (the compile records the resolved
// path).
func (s *gitScan) wasRecorded(p string) bool {
	if s.recorded[p] {
		return true
	}
	r, err := filepath.EvalSymlinks(p)
	return err == nil && s.recorded[r]
}
