package facts

// This file finds the python start-up hooks of a writable home (H9):
// what every later python runs at start from the user site directory.

import (
	"path"

	"github.com/bwpolicy/bwpolicy/hazard/startup"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// PythonHookName is the Protected.Name of a python start-up hook in a
// user site directory (startup.PythonUserSiteDirs): a .pth file with a
// code line, a usercustomize or sitecustomize module (any form, its
// compiled copy in __pycache__ too), and the modules such a .pth file
// imports. The directory itself stays writable (pip install --user
// writes there); bwrun's post-command scan sets aside a hook a command
// creates or changes.
const PythonHookName = "python start-up hook"

// maxPthRead bounds a .pth file the compile reads to classify it; a
// larger one is taken as code.
const maxPthRead = 1 << 20

// pythonHooks returns the python start-up hooks, inside the writable
// directory root, of the user site directories of homes (the home
// directory, the profile home), each once (seen). Version directories
// and site directories are followed through symlinks, as python follows
// them; a hook reached through one is listed with Symlink set (it cannot
// be protected: a host warning says so, and the scan still sets aside
// what a command changes there).
func (g *gatherer) pythonHooks(root string, index int, homes []string, seen map[string]bool) (out []Protected, looked []string) {
	add := func(p string) {
		if seen[p] || !Within(p, root) {
			return
		}
		seen[p] = true
		pp := g.path(p)
		if pp.Kind != invocation.KindFile && pp.Kind != invocation.KindDir {
			return
		}
		looked = append(looked, p)
		out = append(out, Protected{Name: PythonHookName, Root: root, BindIndex: index, Path: p, Kind: pp.Kind, Symlink: pp.HasLink})
	}
	for _, h := range homes {
		if h == "" {
			continue
		}
		for _, lib := range startup.PythonLibDirs(h) {
			if !Within(lib, root) && !Within(root, lib) {
				continue
			}
			// Looked up unrecorded (the FS follows symlinks): only a hook
			// found is recorded, so pip creating ~/.local/lib or a site
			// directory does not make the invocation stale.
			versions, err := g.fs.ReadDir(lib)
			if err != nil {
				continue
			}
			for _, v := range versions {
				if startup.PythonVersionDir(v) {
					for _, p := range g.siteHooks(path.Join(lib, v, "site-packages")) {
						add(p)
					}
				}
			}
		}
	}
	return out, looked
}

// siteHooks lists the start-up hooks of one site directory (none when
// it does not exist).
func (g *gatherer) siteHooks(site string) []string {
	real := site
	names, err := g.fs.ReadDir(real)
	if err != nil {
		return nil
	}
	var out, mods []string
	cache := false
	for _, n := range names {
		switch {
		case n == "__pycache__":
			cache = true
		case startup.PythonCustomize(n):
			out = append(out, path.Join(site, n))
		case startup.PthFile(n):
			// Read below the resolved directory, unrecorded: a path-only
			// .pth is data, and pip may remove it.
			b, err := g.fs.ReadFile(path.Join(real, n), maxPthRead+1)
			if err != nil || len(b) > maxPthRead || startup.PthRunsCode(b) {
				out = append(out, path.Join(site, n))
				mods = append(mods, startup.PthModules(b)...)
			}
		}
	}
	for _, n := range names {
		if n != "__pycache__" && !startup.PythonCustomize(n) && !startup.PthFile(n) && startup.PythonModuleEntry(n, mods) {
			out = append(out, path.Join(site, n))
		}
	}
	if cache {
		cached, _ := g.fs.ReadDir(path.Join(real, "__pycache__"))
		for _, n := range cached {
			if startup.PythonCustomize(n) || startup.PythonModuleEntry(n, mods) {
				out = append(out, path.Join(site, "__pycache__", n))
			}
		}
	}
	return out
}
