package facts

import (
	"path"
	"sort"

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

// protectRoot is a writable directory whose protected entries are
// looked for, and the bind that makes it writable (-1: the working
// directory; ProfileHomeIndex: the profile home).
type protectRoot struct {
	dir   string
	index int
}

// protectedRoots are the candidates' places: the working directory (when
// the profile makes it writable), the profile home, and each read-write
// bind's source, at its own path or elsewhere.
func protectedRoots(f *Facts, cwdWritable bool) []protectRoot {
	var roots []protectRoot
	if cwdWritable && f.Cwd.Exists {
		idx := -1
		if f.Cwd.InProfileHome { // protected after the profile home's bind, with its entries
			idx = ProfileHomeIndex
		}
		roots = append(roots, protectRoot{f.Cwd.Real, idx})
	}
	if cwdWritable && f.HomeMode == "profile" && f.ProfileHome.Kind == invocation.KindDir {
		roots = append(roots, protectRoot{f.ProfileHome.Real, ProfileHomeIndex})
	}
	// A read-write bind mounted elsewhere (dest ≠ src) shows its
	// source's entries at dest: they are looked for in the source, and
	// the emitter protects each at its place below dest.
	for _, b := range f.Binds {
		// A source reached through a symlink is protected at its place
		// below dest too (the third review bound ~/.config through a
		// link to the home: its entries were writable).
		if !b.Readonly && b.SrcAbs && b.DestAbs && b.SrcKind == invocation.KindDir {
			roots = append(roots, protectRoot{b.SrcReal, b.Index})
		}
	}
	return roots
}

// protectedHomes are the homes whose start-up names are looked for in a
// writable directory that holds them: HOME, the profile home, and the
// user's home in the password database when HOME names another (its
// start-up files run at the user's next login).
func protectedHomes(h *Host, f *Facts) []string {
	homes := []string{f.Home}
	if f.HomeMode == "profile" && f.ProfileHome.Kind == invocation.KindDir {
		homes = append(homes, f.ProfileHome.Real)
	}
	if ph := otherPasswdHome(h); ph != "" {
		homes = append(homes, ph)
	}
	return homes
}

// protection is the judgement of the candidates: each path once
// (seen), recorded as a precondition unless protect.allow names it
// (looked), listed when it is there as a file (or a directory).
type protection struct {
	g      *gatherer
	allow  map[string]bool
	seen   map[string]bool
	isRoot map[string]bool
	out    []Protected
	looked []string
}

// judge decides candidate p, protected as name in root r: false when it
// was judged already. A path that is not a file or a directory (dirOnly:
// not a directory) is not listed, and recorded only when absentToo (a
// start-up name a command could create; not a nested repository's
// entry, whose repository the post-command scan watches).
func (c *protection) judge(r protectRoot, name, p string, dirOnly, absentToo bool) bool {
	if c.seen[p] {
		return false
	}
	c.seen[p] = true
	if absentToo && !c.allow[name] {
		c.looked = append(c.looked, p)
	}
	pp := c.g.path(p)
	if pp.Kind != invocation.KindDir && (dirOnly || pp.Kind != invocation.KindFile) {
		return true
	}
	if !absentToo && !c.allow[name] {
		c.looked = append(c.looked, p)
	}
	// Roots are resolved paths: a link reported lies below the root.
	c.out = append(c.out, Protected{Name: name, Root: r.dir, BindIndex: r.index, Path: p, Kind: pp.Kind,
		Symlink: pp.HasLink, Allowed: c.allow[name]})
	return true
}

// protectedEntries looks for ProtectedNames in the writable directories
// (protectedRoots). Absent entries are recorded (a precondition), not
// listed.
//
// allow holds the names protect.allow leaves writable: they are listed
// with Allowed set and not recorded as H9 preconditions.
func (g *gatherer) protectedEntries(h *Host, f *Facts, cwdWritable bool, allow map[string]bool, gitReadOnly bool) (out []Protected, looked []string) {
	roots := protectedRoots(f, cwdWritable)
	// A path below two roots (the profile home inside a working
	// directory at HOME, a read-write bind inside the working directory)
	// is judged in the deeper one: its bind is mounted later and covers
	// the path, so the read-only bind must follow that one (FuzzVerify
	// found the profile home's .git/config left writable with the working
	// directory at HOME).
	sort.SliceStable(roots, func(i, j int) bool { return len(roots[i].dir) > len(roots[j].dir) })
	c := &protection{g: g, allow: allow, seen: map[string]bool{}, isRoot: map[string]bool{}}
	for _, r := range roots {
		c.isRoot[r.dir] = true
	}
	homes := protectedHomes(h, f)
	fromEnv := g.envStartup(h)
	for _, r := range roots {
		g.protectNames(c, r, homes, fromEnv)
		g.protectGit(c, r, h, f, gitReadOnly)
	}
	return c.out, c.looked
}

// protectNames judges the start-up names below root r: ProtectedNames
// (and the homes' names where r holds a home), the places the
// environment names (envStartup) inside r, python's start-up hooks.
func (g *gatherer) protectNames(c *protection, r protectRoot, homes []string, fromEnv [][2]string) {
	nps := protectedPaths(r.dir, homes)
	for _, np := range fromEnv {
		// A place that is itself a writable directory of the settings
		// is writable by the user's choice (a PATH directory that is
		// the working directory is refused: writableProtected).
		if !c.isRoot[np[1]] && Within(np[1], r.dir) {
			nps = append(nps, np)
		}
	}
	for _, np := range nps {
		c.judge(r, np[0], np[1], false, true)
	}
	py, pyLooked := g.pythonHooks(r.dir, r.index, homes, c.seen)
	c.out, c.looked = append(c.out, py...), append(c.looked, pyLooked...)
}

// protectHooksPath judges a hooks directory a configuration of root r
// names (husky and the like, under any name).
func (c *protection) protectHooksPath(r protectRoot, hp string) {
	if hp == "" || !Within(hp, r.dir) || c.isRoot[hp] {
		// A hooks directory that is itself a writable directory of the
		// settings (the working directory, a read-write bind) is
		// writable by the user's choice: binding it read-only would
		// contradict the writable set.
		return
	}
	c.judge(r, "core.hooksPath", hp, true, true)
}

// protectGit judges root r's repositories: the top one's configuration,
// hooks and pointers, its include targets and hooks paths, and the
// repositories nested below it (bounded: ProtectedTruncated).
func (g *gatherer) protectGit(c *protection, r protectRoot, h *Host, f *Facts, gitReadOnly bool) {
	c.protectHooksPath(r, g.hooksPathFor(r.dir, f.Home))
	first := &gitIndirect{g: g, root: r.dir, index: r.index, allow: c.allow, seen: c.seen, record: true, home: f.Home}
	first.dotGit(path.Join(r.dir, ".git"))
	c.out, c.looked = append(c.out, first.out...), append(c.looked, first.looked...)
	for i := range c.out {
		if o := c.out[i]; o.Root == r.dir && o.Name == ".git/config" && o.Kind == invocation.KindFile && !o.Symlink {
			c.out = append(c.out, g.includeTargets(o, f.Home, c.seen, 0)...)
		}
	}
	// Every configuration git may read for this repository (a .git
	// file's target, the common directory's, config.worktree, the
	// include targets) may set core.hooksPath too: protect each
	// directory any of them names (git uses one; protecting all is
	// the safe side).
	for i := 0; i < len(c.out); i++ {
		if o := c.out[i]; o.Root == r.dir && (o.Name == ".git/config" || o.Name == "include") && o.Kind == invocation.KindFile && !o.Symlink {
			if hp, ok := g.hooksPathIn(o.Path, r.dir, f.Home); ok {
				c.protectHooksPath(r, hp)
			}
		}
	}
	repos, more := g.nestedGitDirsCached(h, r.dir, unwalked(r.dir, f.Hidden, c.out))
	if more {
		f.ProtectedTruncated = append(f.ProtectedTruncated, r.dir)
	}
	nestedFrom := len(c.out)
	gitDirs := make([]string, len(repos))
	for i, rp := range repos {
		gitDirs[i] = rp.dir
		for _, name := range []string{"config", "hooks"} {
			// protect.allow names them like the top repository's.
			c.judge(r, ".git/"+name, path.Join(rp.dir, name), false, false)
		}
	}
	// The nested repositories' and submodules' indirections
	// (commondir, config.worktree, worktrees; a nested .git file and
	// its gitdir target), listed, not recorded.
	gi := &gitIndirect{g: g, root: r.dir, index: r.index, allow: c.allow, seen: c.seen, home: f.Home}
	for _, rp := range repos {
		if g.fs.Lstat(rp.dir).Kind == invocation.KindFile {
			gi.dotGit(rp.dir)
		} else {
			gi.gitDir(rp.dir, true, rp.top)
		}
	}
	c.out = append(c.out, gi.out...)
	if (gi.more || first.more) && !more {
		f.ProtectedTruncated = append(f.ProtectedTruncated, r.dir)
	}
	c.out = g.nestedIncludes(c.out, nestedFrom, f.Home, c.seen)
	// Every directory a core.hooksPath of these repositories may
	// name, a relative one joined to each worktree git runs the
	// repository's hooks in.
	hps, unresolved := g.repoHooksPaths(append(first.repos, gi.repos...), f.Home)
	for _, hp := range hps {
		c.protectHooksPath(r, hp)
	}
	for _, u := range unresolved {
		if Within(u, r.dir) {
			f.GitNotes = append(f.GitNotes, u)
		}
	}
	if gitReadOnly {
		// After the pointers: a nested .git file bound as one is not
		// bound again as a whole.
		c.out = append(c.out, g.wholeGitDirs(r.dir, r.index, gitDirs, c.seen)...)
	}
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
