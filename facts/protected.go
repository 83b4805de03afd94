package facts

import (
	"path"

	"github.com/bwpolicy/bwpolicy/hazard/git"
	"github.com/bwpolicy/bwpolicy/hazard/startup"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/settings"
)

// ProtectedNames are the entries of a writable directory that stay
// read-only inside it (H9): what runs later *outside* the sandbox when
// the user works there — git's hooks and configuration (core.hooksPath,
// core.fsmonitor, aliases and filters run commands), shell start-up
// files, direnv's .envrc, editor and agent task definitions, autostart
// entries and user services, ~/.local/bin on PATH — and, in a home
// directory only, what tools run at their own start
// (startup.HomeNames: ~/.npmrc, ~/.Rprofile, …). A command may
// edit the project; it may not plant something the host executes.
var ProtectedNames = append(append(append([]string(nil), gitProtectedNames...), startup.Names...), startup.HomeNames...)

// gitProtectedNames are the entries of ProtectedNames that are git's:
// git init, git submodule and hook managers create them, so one created
// by a command is warned about (and the invocation goes stale) but
// stays; the scan checks what git would run from them. Every other
// entry is a startup.Names or startup.HomeNames entry,
// set aside when a command creates it.
var gitProtectedNames = []string{".git/config", ".git/hooks", ".husky", ".githooks", ".gitconfig", ".config/git/config", ".gitmodules"}

// protectedPaths returns the (name, path) pairs of ProtectedNames to
// protect in the writable directory root: each name below root but the
// home-only ones (startup.HomeNames) and, for each of homes (the
// home directory, the profile home) that is root or holds it or lies in
// it, each name below that home that lies inside root (a read-write bind
// of ~/.config/systemd holds ~/.config/systemd/user, which a login runs
// whatever the bind's root). A pair may come twice.
func protectedPaths(root string, homes []string) [][2]string {
	var out [][2]string
	for _, name := range append(append([]string(nil), gitProtectedNames...), startup.Names...) {
		out = append(out, [2]string{name, path.Join(root, name)})
	}
	for _, home := range homes {
		if home == "" || !Within(root, home) && !Within(home, root) {
			continue
		}
		for _, name := range ProtectedNames {
			if p := path.Join(home, name); p != root && Within(p, root) {
				out = append(out, [2]string{name, p})
			}
		}
	}
	return out
}

// Protected is one entry of ProtectedNames found in a writable
// directory, or the directory core.hooksPath names there.
type Protected struct {
	// Name is the entry (one of ProtectedNames, or "core.hooksPath"); Root the writable
	// directory (the working directory, a read-write bind at its own
	// path, or the profile home); BindIndex the bind's index, -1 for the
	// working directory, ProfileHomeIndex for the profile home.
	Name      string `json:"name"`
	Root      string `json:"root"`
	BindIndex int    `json:"bind_index"`
	// Path is Root/Name (for core.hooksPath, the directory it names);
	// Kind what is there (file or dir).
	Path string `json:"path"`
	Kind string `json:"kind"`
	// Symlink is true when the entry or a parent below Root is a symlink:
	// a bind cannot keep a link from being replaced, so it is not
	// protected (a host warning says so).
	Symlink bool `json:"symlink"`
	// Allowed is true when protect.allow names it: it stays writable.
	Allowed bool `json:"allowed"`
}

// ProfileHomeIndex is Protected.BindIndex for an entry of the profile
// home (home_mode: profile, HERMES_HOME/home): shared by every command
// of the Hermes profile, it gets the same protection as a home-directory
// working directory.
const ProfileHomeIndex = -2

// protectedEntries looks for ProtectedNames in the writable directories:
// the working directory (when the profile makes it writable) and each
// read-write bind, at its own path or elsewhere. Absent entries are recorded
// (a precondition), not listed.
//
// allow holds the names protect.allow leaves writable: they are listed
// with Allowed set and not recorded as H9 preconditions.
func (g *gatherer) protectedEntries(h *Host, f *Facts, cwdWritable bool, allow map[string]bool, gitReadOnly bool) (out []Protected, looked []string) {
	type root struct {
		dir   string
		index int
	}
	var roots []root
	if cwdWritable && f.Cwd.Exists {
		idx := -1
		if f.Cwd.InProfileHome { // protected after the profile home's bind, with its entries
			idx = ProfileHomeIndex
		}
		roots = append(roots, root{f.Cwd.Real, idx})
	}
	if cwdWritable && f.HomeMode == "profile" && f.ProfileHome.Kind == invocation.KindDir {
		roots = append(roots, root{f.ProfileHome.Real, ProfileHomeIndex})
	}
	// A read-write bind mounted elsewhere (dest ≠ src) shows its
	// source's entries at dest: they are looked for in the source, and
	// the emitter protects each at its place below dest.
	for _, b := range f.Binds {
		// A source reached through a symlink is protected at its place
		// below dest too (the third review bound ~/.config through a
		// link to the home: its entries were writable).
		if !b.Readonly && b.SrcAbs && b.DestAbs && b.SrcKind == invocation.KindDir {
			roots = append(roots, root{b.SrcReal, b.Index})
		}
	}
	homes := []string{f.Home}
	if f.HomeMode == "profile" && f.ProfileHome.Kind == invocation.KindDir {
		homes = append(homes, f.ProfileHome.Real)
	}
	if ph := otherPasswdHome(h); ph != "" {
		homes = append(homes, ph) // its start-up files run at the user's next login
	}
	seen := map[string]bool{}
	isRoot := map[string]bool{}
	for _, r := range roots {
		isRoot[r.dir] = true
	}
	fromEnv := g.envStartup(h)
	for _, r := range roots {
		nps := protectedPaths(r.dir, homes)
		for _, np := range fromEnv {
			// A place that is itself a writable directory of the settings
			// is writable by the user's choice (a PATH directory that is
			// the working directory is refused: writableProtected).
			if !isRoot[np[1]] && Within(np[1], r.dir) {
				nps = append(nps, np)
			}
		}
		for _, np := range nps {
			name, p := np[0], np[1]
			if seen[p] {
				continue
			}
			seen[p] = true
			if !allow[name] {
				looked = append(looked, p)
			}
			pp := g.path(p)
			if pp.Kind != invocation.KindFile && pp.Kind != invocation.KindDir {
				continue
			}
			// Roots are resolved paths: a link reported lies below the root.
			out = append(out, Protected{Name: name, Root: r.dir, BindIndex: r.index, Path: p, Kind: pp.Kind,
				Symlink: pp.HasLink, Allowed: allow[name]})
		}
		py, pyLooked := g.pythonHooks(r.dir, r.index, homes, seen)
		out, looked = append(out, py...), append(looked, pyLooked...)
		// Hooks kept in the worktree through core.hooksPath (husky and
		// the like, under any name).
		protectHooksPath := func(hp string) {
			if hp == "" || !Within(hp, r.dir) || seen[hp] || isRoot[hp] {
				// A hooks directory that is itself a writable directory of
				// the settings (the working directory, a read-write bind) is
				// writable by the user's choice: binding it read-only would
				// contradict the writable set.
				return
			}
			seen[hp] = true
			if !allow["core.hooksPath"] {
				looked = append(looked, hp)
			}
			if pp := g.path(hp); pp.Kind == invocation.KindDir {
				out = append(out, Protected{Name: "core.hooksPath", Root: r.dir, BindIndex: r.index, Path: hp, Kind: pp.Kind,
					Symlink: pp.HasLink, Allowed: allow["core.hooksPath"]})
			}
		}
		protectHooksPath(g.hooksPathFor(r.dir, f.Home))
		first := &gitIndirect{g: g, root: r.dir, index: r.index, allow: allow, seen: seen, record: true, home: f.Home}
		first.dotGit(path.Join(r.dir, ".git"))
		out, looked = append(out, first.out...), append(looked, first.looked...)
		for i := range out {
			if o := out[i]; o.Root == r.dir && o.Name == ".git/config" && o.Kind == invocation.KindFile && !o.Symlink {
				out = append(out, g.includeTargets(o, f.Home, seen, 0)...)
			}
		}
		// Every configuration git may read for this repository (a .git
		// file's target, the common directory's, config.worktree, the
		// include targets) may set core.hooksPath too: protect each
		// directory any of them names (git uses one; protecting all is
		// the safe side).
		for i := 0; i < len(out); i++ {
			if o := out[i]; o.Root == r.dir && (o.Name == ".git/config" || o.Name == "include") && o.Kind == invocation.KindFile && !o.Symlink {
				if hp, ok := g.hooksPathIn(o.Path, r.dir, f.Home); ok {
					protectHooksPath(hp)
				}
			}
		}
		repos, more := g.nestedGitDirsCached(h, r.dir, unwalked(r.dir, f.Hidden, out))
		if more {
			f.ProtectedTruncated = append(f.ProtectedTruncated, r.dir)
		}
		nestedFrom := len(out)
		gitDirs := make([]string, len(repos))
		for i, rp := range repos {
			gd := rp.dir
			gitDirs[i] = gd
			for _, name := range []string{"config", "hooks"} {
				p := path.Join(gd, name)
				if seen[p] {
					continue
				}
				seen[p] = true
				pp := g.path(p)
				if pp.Kind != invocation.KindFile && pp.Kind != invocation.KindDir {
					continue
				}
				allowName := ".git/" + name // protect.allow names them like the top repository's
				if !allow[allowName] {
					looked = append(looked, p)
				}
				out = append(out, Protected{Name: allowName, Root: r.dir, BindIndex: r.index, Path: p, Kind: pp.Kind,
					Symlink: pp.HasLink, Allowed: allow[allowName]})
			}
		}
		// The nested repositories' and submodules' indirections
		// (commondir, config.worktree, worktrees; a nested .git file and
		// its gitdir target), listed, not recorded.
		gi := &gitIndirect{g: g, root: r.dir, index: r.index, allow: allow, seen: seen, home: f.Home}
		for _, rp := range repos {
			if g.fs.Lstat(rp.dir).Kind == invocation.KindFile {
				gi.dotGit(rp.dir)
			} else {
				gi.gitDir(rp.dir, true, rp.top)
			}
		}
		out = append(out, gi.out...)
		if (gi.more || first.more) && !more {
			f.ProtectedTruncated = append(f.ProtectedTruncated, r.dir)
		}
		out = g.nestedIncludes(out, nestedFrom, f.Home, seen)
		// Every directory a core.hooksPath of these repositories may
		// name, a relative one joined to each worktree git runs the
		// repository's hooks in.
		hps, unresolved := g.repoHooksPaths(append(first.repos, gi.repos...), f.Home)
		for _, hp := range hps {
			protectHooksPath(hp)
		}
		for _, c := range unresolved {
			if Within(c, r.dir) {
				f.GitNotes = append(f.GitNotes, c)
			}
		}
		if gitReadOnly {
			// After the pointers: a nested .git file bound as one is not
			// bound again as a whole.
			out = append(out, g.wholeGitDirs(r.dir, r.index, gitDirs, seen)...)
		}
	}
	return out, looked
}

// includeTargets returns the existing files a repository configuration
// includes (include.path, includeIf.*.path; relative to the including
// file, "~/" the home; git's depth bound of 10) that lie in the same
// writable directory: git reads them as configuration, so they stay
// read-only like the configuration itself (Name "include").
func (g *gatherer) includeTargets(cfg Protected, home string, seen map[string]bool, depth int) []Protected {
	if depth >= 10 {
		return nil
	}
	content, err := g.fs.ReadFile(cfg.Path, maxGitConfig)
	if err != nil {
		return nil
	}
	entries, _ := git.ParseConfig(content)
	var out []Protected
	for _, e := range entries {
		t, ok := includeTarget(e, cfg.Path, home)
		if !ok {
			continue
		}
		if seen[t] || !Within(t, cfg.Root) {
			continue
		}
		seen[t] = true
		pp := g.path(t)
		if pp.Kind != invocation.KindFile {
			continue
		}
		p := Protected{Name: "include", Root: cfg.Root, BindIndex: cfg.BindIndex, Path: t, Kind: pp.Kind, Symlink: pp.HasLink}
		out = append(out, p)
		if !p.Symlink {
			out = append(out, g.includeTargets(p, home, seen, depth+1)...)
		}
	}
	return out
}

// wholeGitDirs lists, for protect.git: read-only, the .git of dir
// (directory or file) and of the repositories below it (the gitDirs
// that end in /.git) as Protected entries named ".git": each is bound
// read-only as a whole.
func (g *gatherer) wholeGitDirs(dir string, index int, gitDirs []string, seen map[string]bool) []Protected {
	var out []Protected
	for _, p := range append([]string{path.Join(dir, ".git")}, gitDirs...) {
		if path.Base(p) != ".git" || seen["whole:"+p] {
			continue
		}
		if g.fs.Lstat(p).Kind == invocation.KindFile && seen[p] {
			continue // a .git file already bound as a git pointer
		}
		seen["whole:"+p] = true
		pp := g.path(p)
		if pp.Kind != invocation.KindFile && pp.Kind != invocation.KindDir {
			continue
		}
		out = append(out, Protected{Name: ".git", Root: dir, BindIndex: index, Path: p, Kind: pp.Kind, Symlink: pp.HasLink})
	}
	return out
}

// AllowPastBound is the protect.allow name that accepts a writable
// directory with more repositories than the compile binds read-only
// (maxNestedRepos, maxGitWorktrees, maxModuleDepth, and the walk's
// git.MaxWalkEntries and git.MaxWalkDepth): without it, the
// policy refuses such a directory (H9 fails closed), since a command
// could plant decoys that push a real repository past the bound.
const AllowPastBound = "repositories past the bound"

// protectAllow is the set of names protect.allow names.
func protectAllow(s *settings.Settings) map[string]bool {
	m := map[string]bool{}
	if s.Protect != nil {
		for _, n := range s.Protect.Allow {
			m[n] = true
		}
	}
	return m
}
