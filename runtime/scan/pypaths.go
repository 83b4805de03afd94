package scan

// This file follows the path lines of the .pth files in a python user
// site directory (H9): python looks for usercustomize and sitecustomize
// on the whole sys.path, so a directory a path line adds can hold a
// start-up module too.

import (
	"fmt"
	"path"

	"github.com/bwpolicy/bwpolicy/hazard/git"
	"github.com/bwpolicy/bwpolicy/hazard/startup"
)

// maxPthDirs bounds the directories the path lines of one site
// directory's .pth files add that the scan lists; past it, the
// invocation is reported stale.
const maxPthDirs = 64

// pthPaths is one .pth file's path lines and whether a command could
// have put the file there.
type pthPaths struct {
	pth       string
	dirs      []string
	candidate bool
}

// scanPthDirs checks the directories the .pth files of site add to
// sys.path (relative lines joined to site, as site.py's makepath does):
// a usercustomize or sitecustomize module a command put in one (or its
// compiled copy) is set aside, and so is a .pth a command put in place
// that adds a directory still holding one.
func (s *gitScan) scanPthDirs(site string, pths []pthPaths, buf []byte) {
	n := 0
	for _, pp := range pths {
		for _, d := range pp.dirs {
			if !path.IsAbs(d) {
				d = path.Join(site, d)
			}
			d = path.Clean(d)
			if d == site {
				continue
			}
			if n++; n > maxPthDirs {
				s.stale(site, fmt.Sprintf("the python site scan stopped at %s: its .pth files add more than %d directories (H9), the rest were not checked for usercustomize; review before running python with this home", site, maxPthDirs))
				return
			}
			if s.customizeIn(d, buf) && pp.candidate {
				s.pythonFinding(pp.pth, true, "a python .pth file adding "+d+", which holds a usercustomize or sitecustomize module python runs at every start")
			}
		}
	}
}

// customizeIn sets aside the start-up modules of dir (and their compiled
// copies) that a command put there, and reports whether one is left.
func (s *gitScan) customizeIn(dir string, buf []byte) bool {
	var de git.DirEntries
	if err := listFollowing(dir, buf, &de); err != nil || len(de.Names) > maxPythonSiteEntries {
		return false
	}
	moved := s.changed(dir)
	left := false
	for _, n := range de.Names {
		if startup.PythonCustomize(n) && !s.pythonFinding(dir+"/"+n, moved, "a python start-up module in a directory a .pth file adds (python imports it at every start)") {
			left = true
		}
	}
	if !left {
		return false
	}
	if listFollowing(path.Join(dir, "__pycache__"), buf, &de) == nil {
		for _, n := range de.Names {
			if startup.PythonCustomize(n) {
				s.pythonFinding(path.Join(dir, "__pycache__", n), moved, "a compiled python start-up module (python loads it instead of its source)")
			}
		}
	}
	return true
}
