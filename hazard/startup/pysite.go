package startup

// This file says what, in a python user site directory, runs at every
// python start (H9): site.py's rules, read from CPython's Lib/site.py.

import (
	"path"
	"strings"
	"unicode/utf8"
)

// PythonUserSiteDirs are the patterns, relative to a home directory, of
// the user site directories python reads at every start (site.py: the
// user base ~/.local, then lib/pythonX.Y/site-packages, "t" appended for
// a free-threaded build; PyPy's lib/pypyX.Y). Every version directory
// matches, not only the host's python's, and lib64 too (a distribution
// may patch the user scheme to sys.platlibdir).
var PythonUserSiteDirs = []string{".local/lib/python*/site-packages", ".local/lib/pypy*/site-packages",
	".local/lib64/python*/site-packages", ".local/lib64/pypy*/site-packages"}

// PythonVersionDir reports whether name is a version directory of a
// user site pattern below lib (python3.11, python3.13t, pypy3.10).
func PythonVersionDir(name string) bool {
	return strings.HasPrefix(name, "python") || strings.HasPrefix(name, "pypy")
}

// pythonLibDirs are the directories below the user base that hold the
// version directories.
var pythonLibDirs = []string{"lib", "lib64"}

// PythonLibDirs returns home's directories that hold python version
// directories (~/.local/lib, ~/.local/lib64).
func PythonLibDirs(home string) []string {
	out := make([]string, len(pythonLibDirs))
	for i, l := range pythonLibDirs {
		out[i] = path.Join(home, ".local", l)
	}
	return out
}

// PythonCustomize reports whether an entry of a site directory is a form
// of the modules site.py imports at every start, usercustomize and
// sitecustomize: the source, a package directory, an extension module,
// a sourceless .pyc (usercustomize.py, usercustomize/,
// usercustomize.cpython-311-x86_64-linux-gnu.so, usercustomize.pyc), or
// its compiled copy in __pycache__ (which python loads instead of the
// source when its header matches the source's size and time).
func PythonCustomize(name string) bool {
	return moduleEntry(name, "usercustomize") || moduleEntry(name, "sitecustomize")
}

// SetAsideSuffix is what the name of an entry bwrun's post-command scan
// set aside ends with, before its time: no python import suffix ends
// such a name, so a set-aside start-up module is no module.
const SetAsideSuffix = ".bwpolicy-set-aside-"

// moduleEntry reports whether a directory entry name is a form of
// module mod (mod, mod.py, mod.<anything>), other than one set aside
// (no import suffix ends a set-aside name).
func moduleEntry(name, mod string) bool {
	return name == mod || strings.HasPrefix(name, mod+".") && !strings.Contains(name, SetAsideSuffix)
}

// PthFile reports whether a site directory entry is a path
// configuration file site.py processes (every name ending in ".pth",
// hidden ones too: older pythons read them).
func PthFile(name string) bool { return strings.HasSuffix(name, ".pth") && len(name) > len(".pth") }

// PthRunsCode reports whether a .pth file's content holds a line python
// executes: site.py exec()s a line that starts with "import" and a space
// or tab. The test is wider than site.py's, so that no python version
// reads one as code that this takes as a path: lines are split at CR as
// well as LF (python reads them with universal newlines), a UTF-8 byte
// order mark and leading blanks are dropped (Python 3.13 decodes
// utf-8-sig), and every ";"-separated part of a line is looked at. A
// file that is not UTF-8 or holds a NUL counts as code. A .pth whose
// lines are only paths and comments is data: it adds directories to
// sys.path, and runs nothing.
func PthRunsCode(b []byte) bool {
	if !utf8.Valid(b) || strings.IndexByte(string(b), 0) >= 0 {
		return true
	}
	s := strings.TrimPrefix(string(b), "\ufeff")
	for _, line := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }) {
		for _, part := range strings.Split(line, ";") {
			part = strings.TrimLeft(part, " \t\f\v")
			if strings.HasPrefix(part, "import") && len(part) > len("import") && strings.ContainsRune(" \t\f\v", rune(part[len("import")])) {
				return true
			}
		}
	}
	return false
}

// PthModules returns the top-level modules the code lines of a .pth
// file name (import X, import X.Y as Z, from X import Y, __import__('X'),
// import_module('X')): python imports them from sys.path at every start,
// so their files in the site directory run as the .pth does.
func PthModules(b []byte) []string {
	var out []string
	seen := map[string]bool{}
	add := func(m string) {
		if i := strings.IndexByte(m, '.'); i >= 0 {
			m = m[:i]
		}
		if m != "" && !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	f := strings.FieldsFunc(string(b), func(r rune) bool {
		return !(r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	})
	for i := 0; i+1 < len(f); i++ {
		switch f[i] {
		case "import", "from", "__import__", "import_module":
			add(f[i+1])
		}
	}
	// "import a, b" names more than one.
	for _, stmt := range strings.FieldsFunc(string(b), func(r rune) bool { return r == '\n' || r == '\r' || r == ';' }) {
		stmt = strings.TrimSpace(stmt)
		if rest, ok := strings.CutPrefix(stmt, "import"); ok {
			for _, m := range strings.Split(rest, ",") {
				if fs := strings.Fields(m); len(fs) > 0 {
					add(fs[0])
				}
			}
		}
	}
	return out
}

// PythonModuleEntry reports whether a site directory entry (or one of
// its __pycache__) is a form of one of mods.
func PythonModuleEntry(name string, mods []string) bool {
	for _, m := range mods {
		if moduleEntry(name, m) {
			return true
		}
	}
	return false
}

// PthPaths returns the path lines of a .pth file as site.py reads them:
// lines split with universal newlines, comments ("#" first), blank lines
// and the lines it executes ("import" and a space or tab first) left
// out, trailing blanks removed.
func PthPaths(b []byte) []string {
	var out []string
	for _, line := range strings.FieldsFunc(string(b), func(r rune) bool { return r == '\n' || r == '\r' }) {
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" ||
			strings.HasPrefix(line, "import ") || strings.HasPrefix(line, "import\t") {
			continue
		}
		out = append(out, strings.TrimRight(line, " \t\f\v"))
	}
	return out
}
