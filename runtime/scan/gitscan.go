package scan

import (
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/bwpolicy/bwpolicy/hazard/git"
	"github.com/bwpolicy/bwpolicy/hazard/startup"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/runtime/ledger"
)

// Bounds of the post-command git scan (ScanGit). Past one, the scan
// stops there and reports the invocation stale with a message, or sets
// aside whole what it did not look into (gitbounds.go): it never skips
// silently. The exported bounds are variables so that tests can lower
// them; nothing changes them at run time.
var (
	// MaxGitScanRepos bounds the repositories (git directories,
	// submodules and worktrees included) inspected, counted apart for
	// git directories that existed when compiling and for those a
	// command created: past it, one a command created is set aside
	// whole.
	MaxGitScanRepos = 1024
	// maxGitHooks bounds the entries of one hooks, modules or worktrees
	// directory listed one by one.
	maxGitHooks = 1024
)

const (
	// maxGitIncludeDepth is git's MAX_INCLUDE_DEPTH.
	maxGitIncludeDepth = 10
	// maxModuleDepth bounds the nesting of .git/modules directories.
	maxModuleDepth = 8
)

// SetAside is one file or directory the post-command scan moved out of
// git's way: Path was renamed to As (same directory), for Why.
type SetAside struct {
	Path string `json:"path"`
	As   string `json:"as"`
	Why  string `json:"why"`
}

// GitScanReport is what the post-command git scan did: what it set
// aside, its warnings (one line each), and StalePaths, why the
// invocation is stale now (a set-aside path, a bound reached, a file it
// could not move). A non-empty report means the next command must be
// compiled again.
type GitScanReport struct {
	SetAside   []SetAside `json:"set_aside,omitempty"`
	Warnings   []string   `json:"warnings,omitempty"`
	StalePaths []string   `json:"stale_paths,omitempty"`
	// Unresolved is true when the scan left something unchecked or in
	// place (a bound reached, a directory it could not list, a file it
	// could not set aside). A recompile clears nothing of it: the next
	// scan judges by the same ledger.
	Unresolved bool `json:"unresolved,omitempty"`
}

// Stale reports whether the scan makes the invocation stale.
func (r *GitScanReport) Stale() bool { return len(r.SetAside) > 0 || len(r.StalePaths) > 0 }

// ScanGit is H9's post-command scan, run after the sandbox is dead and
// before bwrun returns. It walks the host side of the writable set (the
// sources of the invocation's read-write binds), skipping what the
// invocation keeps read-only or masks there, and finds every repository
// a later host git could use, by git's own rules (setup.c): a ".git"
// directory, a ".git" file's "gitdir:", a bare repository (HEAD, objects,
// refs), a "commondir" file, "config.worktree", ".git/worktrees/*" and
// ".git/modules/*" (submodules, nested). In every configuration file
// such a repository reads (include and includeIf targets followed, up to
// git's depth of 10, relative to the including file, "~/" the home;
// plus the global ~/.gitconfig and ~/.config/git/config) that a command
// could have written, a variable of git.CodeKeys, or a file git cannot
// parse, is a finding; so is every executable (or symlinked) hook in the
// hooks directory git would use (core.hooksPath, else hooks/) that a
// command could have written. Each finding is renamed next to itself
// with a ".bwpolicy-set-aside-<time>" suffix (never deleted, never
// through a symlink), as is the ".git" file or "commondir" that led to
// it. A configuration file or hook that the environment's ledger led
// holds as it is now (gitjudge.go) is the user's and not a finding
// (unless a pointer the command wrote led there: gitScan.distrust);
// without a ledger everything is the command's;
// what is not a repository yet but holds names git runs code from is
// checked too (gitstaged.go), so that it cannot pass as the user's
// after a recompile: the user's own core.pager or hook in a repository the
// invocation leaves writable stays where it is. A protected entry of the profile home that was absent when
// compiling (H9, invocation.ScopeProfileHome) and exists now is set aside too, and so is
// such an entry of another writable directory when it is a start-up file
// (H9, startup.Names: .envrc, .devcontainer.json, a user unit
// directory): git's own entries (.git/config, .git/hooks, .gitmodules)
// that git init and git submodule create are warned about and stay. The
// python user site directories of the sandbox's and the host's home are
// checked too (scanPythonSites): a .pth file with a code line or a
// usercustomize module a command left there is set aside. Files the invocation binds read-only, and files outside the
// writable set, are not findings: a command could not have written them.
func ScanGit(inv *invocation.Invocation, home string, now time.Time, led *ledger.Ledger) GitScanReport {
	return ScanGitIndexed(inv, home, now, led, nil)
}

// ScanGitIndexed is ScanGit with the environment's directory index idx
// (ledger.Index; nil: none): directories unchanged since a finished scan
// are not read again, and those read are kept in idx.
func ScanGitIndexed(inv *invocation.Invocation, home string, now time.Time, led *ledger.Ledger, idx *ledger.Index) GitScanReport {
	s := newGitScan(inv, home, now, led)
	s.index = idx
	defer s.siblings.close()
	s.run(inv)
	return s.rep
}

// run is the scan (ScanGit), or the recording of the ledger (RecordLedger).
func (s *gitScan) run(inv *invocation.Invocation) {
	for _, p := range inv.Preconditions {
		if p.Kind == invocation.KindSymlink && p.Why == invocation.ReasonProtectedEntries && s.startupFile(p.Path) {
			// A symlinked start-up entry cannot be bound read-only (a
			// bind lands on its target): a command may replace the link
			// itself, and what it put there runs on the host.
			if _, err := os.Lstat(p.Path); err != nil {
				continue // gone: nothing runs
			}
			if t, err := os.Readlink(p.Path); err != nil || t != p.Target {
				if s.writable(p.Path) {
					s.setAside(p.Path, "a start-up file the host would run later (H9), a symlink when compiling, replaced")
				}
			}
			continue
		}
		if p.Kind != invocation.KindAbsent {
			continue
		}
		switch {
		case p.Why == invocation.ReasonProtectedEntries && p.Scope == invocation.ScopeProfileHome:
			// The profile home is shared by every later command of the
			// Hermes profile, which would run what a command created.
			if _, err := os.Lstat(p.Path); err == nil {
				s.setAside(p.Path, "a start-up file of the profile home (it would run in every later command of the profile)")
			}
		case p.Why == invocation.ReasonProtectedEntries && s.startupFile(p.Path):
			if _, err := os.Lstat(p.Path); err == nil {
				s.setAside(p.Path, "a start-up file the host would run later (H9), absent when compiling")
			}
		}
	}
	s.scanPythonSites(pythonHomes(inv, s.home), inv.Preconditions)
	s.globalHP = s.globalHooksPath()
	for _, r := range s.roots {
		switch {
		case s.over:
		case s.changes != nil:
			s.walkChanges(r)
		default:
			s.walk(r)
		}
	}
	s.boundSummary()
	sort.Strings(s.rep.StalePaths)
}

type gitScan struct {
	mounts []scanMount // the invocation's mounts, in order
	roots  []string    // host sources of the read-write binds (outermost)
	home   string
	stamp  string
	// linked are the places inside git directories looked at through a
	// symlink (linkTarget), with where code was set aside.
	linked map[linkKey]string
	// resolved are the symlinks' targets resolved (resolveLink), by
	// link text and directory.
	resolved map[[2]string]string
	// real holds the paths realpath resolved, "" for none.
	real map[string]string
	budget
	// index keeps directories' reduced listings between scans
	// (gitindex.go); start is when this scan began.
	index *ledger.Index
	start time.Time
	read  int // directories read (not taken from the index)
	// led is the environment's ledger: what is the user's (gitjudge.go).
	led *ledger.Ledger
	// record makes the scan record what it would judge (RecordLedger).
	record  bool
	entries int
	// repos and newRepos count the git directories inspected that
	// existed when compiling and that were created since (admit).
	repos, newRepos int
	// bound counts what was set aside past a bound, boundQuiet those
	// of them without a warning of their own (pastBound).
	bound, boundQuiet int
	seen              map[string]bool // git directories inspected (resolved)
	// listed holds the common directories whose modules and worktrees
	// were listed.
	listed map[string]bool
	moved  map[string]bool // paths set aside
	// globalHP is core.hooksPath of the global configuration.
	globalHP string
	// distrust, while above 0, makes changed report true: what a
	// pointer the command wrote leads to is judged as the command's.
	distrust int
	// envStartup are the files startup.FileVars name in bwrun's
	// environment (startupFile), read once.
	envStartup map[string]bool
	// recorded are the paths the invocation recorded as existing
	// (scanPythonSites).
	recorded map[string]bool
	rep      GitScanReport
	// points are the mounts' sources and destinations, sameRW whether
	// every read-write bind is at its own path; siblingOf and siblingOK
	// the last answer writableSibling computed, for a child of siblingOf.
	points    map[string]bool
	sameRW    bool
	siblingOf string
	siblingOK bool
	// siblings looks directories up in their parent (gitindex.go).
	siblings siblingStat
	// visits, when set, receives the reduced listings of the
	// directories whose visit does something (ledger.WatchState);
	// changes, when set, makes the walk one of what changed
	// (scanchanges.go).
	visits  *ledger.Index
	changes *changes
}

// scanMount is one mount of the invocation: a bind (host source src at
// dest, rw for read-write) or anything else over dest (read-only binds,
// masks, tmpfs: a command writes nothing on the host below them).
type scanMount struct {
	src, dest string
	rw        bool
}

func newGitScan(inv *invocation.Invocation, home string, now time.Time, led *ledger.Ledger) *gitScan {
	clock := scanClock()
	s := &gitScan{home: home, stamp: now.UTC().Format("20060102T150405Z"), led: led, budget: budget{deadline: clock().Add(MaxGitScanTime), clock: clock}, start: time.Now(),
		seen: map[string]bool{}, moved: map[string]bool{}, listed: map[string]bool{}}
	var rw []string
	args := inv.Bwrap.Args
	for i := 0; i < len(args); i++ {
		n, ok := invocation.BwrapArity(args[i])
		if !ok || i+n >= len(args) {
			continue
		}
		if n > 0 && strings.HasPrefix(args[i], "--") && isMountOption(args[i]) {
			m := scanMount{dest: path.Clean(args[i+n])}
			switch args[i] {
			case "--bind", "--bind-try", "--dev-bind", "--dev-bind-try":
				m.src, m.rw = path.Clean(args[i+1]), true
				rw = append(rw, m.src)
			}
			s.mounts = append(s.mounts, m)
		}
		i += n
	}
	sort.Strings(rw)
	for _, r := range rw {
		if !path.IsAbs(r) || r == "/" {
			continue
		}
		if len(s.roots) > 0 && invocation.Within(r, s.roots[len(s.roots)-1]) {
			continue // a pin or a bind inside another root
		}
		if fi, err := os.Lstat(r); err == nil && fi.IsDir() {
			s.roots = append(s.roots, r)
		}
	}
	return s
}

// isMountOption reports whether a bwrap option puts something at the
// path its last value names. --remount-ro does not: it changes the flags
// of the one mount at its path (the sandbox's own mask over the Hermes
// home), not what is mounted below it.
func isMountOption(o string) bool {
	switch o {
	case "--bind", "--bind-try", "--dev-bind", "--dev-bind-try", "--ro-bind", "--ro-bind-try",
		"--bind-data", "--ro-bind-data", "--file", "--bind-fd", "--ro-bind-fd", "--tmpfs", "--dev",
		"--proc", "--mqueue", "--symlink", "--overlay", "--tmp-overlay", "--ro-overlay":
		return true
	}
	return false
}

// stale records a reason the invocation is stale, with its warning.
func (s *gitScan) stale(p, msg string) {
	s.rep.Unresolved = true
	s.rep.StalePaths = append(s.rep.StalePaths, p)
	s.rep.Warnings = append(s.rep.Warnings, msg)
}

// writable reports whether a command could have written host path p:
// checked as written and, resolved, where it leads.
func (s *gitScan) writable(p string) bool {
	if s.record {
		return s.recordable(p)
	}
	if s.writableLexical(p) || s.earlierWritable(p) {
		return true
	}
	if r, err := s.evalSymlinks(p); err == nil && r != p {
		return s.writableLexical(r) || s.earlierWritable(r)
	}
	return false
}

// evalSymlinks is filepath.EvalSymlinks(p) for an absolute, clean p, its
// directory resolved by realpath (every prefix kept for the scan: the
// repositories' files a scan asks about share their directories) and p
// itself looked at afresh (the scan renames what it sets aside).
func (s *gitScan) evalSymlinks(p string) (string, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return "", err
	}
	if fi.Mode()&os.ModeSymlink != 0 || !path.IsAbs(p) || path.Clean(p) != p || p == "/" {
		return filepath.EvalSymlinks(p)
	}
	d, err := s.realpath(path.Dir(p))
	if err != nil {
		return filepath.EvalSymlinks(p)
	}
	return path.Join(d, path.Base(p)), nil
}

// earlierWritable reports whether an earlier command of the environment
// may have written p and left it unjudged: the ledger is Unresolved (a
// scan since its recording did not finish judging) and p lies in a
// directory it recorded. Such a command's code may lie where this
// invocation binds it read-only (a recompile binds the repositories it
// finds, the planted one among them), so the scan judges it by the
// ledger all the same: a read-only bind says what this command cannot
// write, not what an earlier one did not.
func (s *gitScan) earlierWritable(p string) bool {
	return s.led != nil && s.led.Unresolved && s.led.Covers(p)
}

// recordable reports whether a recording looks at host path p: it lies
// in a root, as written or resolved.
func (s *gitScan) recordable(p string) bool {
	if s.inRoots(p) {
		return true
	}
	r, err := filepath.EvalSymlinks(p)
	return err == nil && r != p && s.inRoots(r)
}

// writableLexical reports whether host path p is writable in the
// sandbox: some read-write bind shows it (at dest plus p's place below
// the source), and the last mount over that place (bwrap mounts in
// order, so a later one covers an earlier one) is a read-write bind of
// the same host path.
func (s *gitScan) writableLexical(p string) bool {
	for _, m := range s.mounts {
		if !m.rw || !invocation.Within(p, m.src) {
			continue
		}
		q := m.dest + strings.TrimPrefix(p, m.src)
		var eff *scanMount
		for i := range s.mounts {
			if invocation.Within(q, s.mounts[i].dest) {
				eff = &s.mounts[i]
			}
		}
		if eff != nil && eff.rw && eff.src+strings.TrimPrefix(q, eff.dest) == p {
			return true
		}
	}
	return false
}

// globals are the user's global git configuration files: their
// core.hooksPath applies to every repository that sets none. With
// GIT_CONFIG_GLOBAL set (in bwrun's environment, as in the host git's
// that runs later), git reads that file instead; one the command wrote
// with a code key is set aside (config).
func (s *gitScan) globals() []string {
	if s.home == "" {
		return nil
	}
	if v := os.Getenv("GIT_CONFIG_GLOBAL"); path.IsAbs(v) {
		return []string{v} // git reads it instead of both
	}
	xdg := path.Join(s.home, ".config")
	if v := os.Getenv("XDG_CONFIG_HOME"); path.IsAbs(v) {
		xdg = v
	}
	return []string{path.Join(xdg, "git", "config"), path.Join(s.home, ".gitconfig")}
}

// globalHooksPath reads core.hooksPath from the global files (the last
// one git reads wins: ~/.gitconfig after the XDG file).
func (s *gitScan) globalHooksPath() string {
	hp := ""
	for _, g := range s.globals() {
		s.config(g, 0, &hp, true)
	}
	return hp
}

// readSmall reads a regular file of at most git.MaxFile bytes
// (following symlinks, as git does) without blocking on a FIFO or a
// device a command left in its place (git.ReadSmall).
func readSmall(p string) ([]byte, error) { return git.ReadSmall(p) }

// errTooLarge is readSmall's error for a file past its bound.
var errTooLarge = git.ErrTooLarge

// joinPhysical is the path the kernel (and git, which passes it on as
// written or through real_path) reaches for rel below dir (rel as is when
// absolute): ".." after a symlink goes to the parent of the link's
// target, not back where the link is, as path.Join would have it. All
// but the last component are resolved; when they cannot be, the lexical
// path is returned (nothing is there for git either).
func joinPhysical(dir, rel string) string {
	p := rel
	if !path.IsAbs(rel) {
		p = dir + "/" + rel
	}
	i := strings.LastIndexByte(p, '/')
	parent, last := p[:i], p[i+1:]
	if parent == "" {
		parent = "/"
	}
	if r, err := filepath.EvalSymlinks(parent); err == nil {
		return path.Join(r, last)
	}
	return path.Clean(p)
}

// startupFile reports whether host path p, recorded by the compile as
// a protected entry, is a start-up file: one of startup.Names or
// startup.HomeNames (startup.NamedPath), or a file the environment makes host
// programs run (startup.FileVars, read from bwrun's environment, the
// user's, once per scan).
func (s *gitScan) startupFile(p string) bool {
	if startup.NamedPath(p) {
		return true
	}
	if s.envStartup == nil {
		s.envStartup = map[string]bool{}
		for _, f := range startup.Files(os.Getenv) {
			s.envStartup[f[1]] = true
			// The compile records the place resolved (a directory on
			// the way may be a link).
			if d, err := filepath.EvalSymlinks(path.Dir(f[1])); err == nil {
				s.envStartup[path.Join(d, path.Base(f[1]))] = true
			}
		}
	}
	return s.envStartup[p]
}
