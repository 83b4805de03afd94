package facts

// This file checks the contents of what the home layout shows (H7, H10):
// an allowed directory is allowed for what tools keep in it, not for a
// credential someone put there. Its parts that hold credentials by
// nature (HomeAllowedLeft: logs) are hidden; its text files are read by
// the detector (hazard/secrets) within a budget, and a file with a
// credential is hidden, as is a file one of them names as a credential
// store.

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/bwpolicy/bwpolicy/hazard/secrets"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// The budget of the contents check, per compile: the entries looked at,
// the files read, the bytes read, a file's size, and the depth below an
// allowed entry. The entries are checked breadth first (~/.gradle's
// init.gradle before a file three directories down). What the check
// cannot read within them is hidden (UnreadWhy), at most
// maxUnreadHidden paths (past it, their parent directories).
const (
	maxAllowVisits  = 4096
	maxAllowReads   = 48
	maxAllowBytes   = 256 << 10
	maxAllowFile    = 32 << 10
	maxAllowDepth   = 6
	maxUnreadHidden = 64
	// magicBytes is what is read of a file first: its format
	// (knownBinary), and the whole of a small text.
	magicBytes = 512
)

// allowBudget counts what the contents check has spent; stopped names
// where it ran out ("" while it has not).
type allowBudget struct {
	visits, reads, bytes int
	stopped              string
}

// allowScanned are the reasons an entry of the home layout is bound back
// whose contents are checked: the built-in allowed entries, the entries
// of ~/.cache shown and the PATH directories under HOME. What home.allow
// names is shown as the user asked.
var allowScanned = []string{HomeWhyBuiltin, HomeWhyCache, HomeWhyPath}

// allowWalk is one contents check of the allowed entries.
type allowWalk struct {
	g *gatherer
	l *HomeLayout
	f *Facts
	b allowBudget
	// roots are the allowed entries checked (depth 0).
	roots map[string]bool
	// tracked are the files the git checkouts met list (checkoutTracked);
	// tb is the budget of reading them (a user's scripts kept in git,
	// ~/.local/bin, are read as any file; a tool's checkout past it is
	// shown unread, as installed).
	tracked map[string]bool
	tb      allowBudget
	// storeTop are the entries at the top of the package stores met
	// (allowStore): files read, directories not entered.
	storeTop map[string]bool
	found    func(SecretFile, []SecretFile)
	// unread are the entries not read, with why.
	unread []SecretFile
}

// allowedSecrets hides, in the entries the home layout binds back, the
// parts of HomeAllowedLeft, each text file the detector finds a
// credential in, each entry the check could not read (too large, past
// its depth or its budget), and the files they name as credential
// stores (and those git's configuration names: gitStores); a note names
// what the budget left hidden.
func (g *gatherer) allowedSecrets(h *Host, f *Facts) (out []Hidden, files []SecretFile, notes []string) {
	l := f.HomeLayout
	if !l.Active() {
		return g.gitStores(h, f, nil)
	}
	for _, rel := range HomeAllowedLeft {
		p := path.Join(l.Home, rel)
		if l.Allowed[rel] == HomeWhySettings || l.Hides(p) || alreadyUnreachable(p, f) || invocation.Missing(g.fs.Lstat(p).Kind) {
			continue
		}
		out = append(out, g.hidden(p, SourceAllowedSecret))
		files = append(files, SecretFile{File: p, Rel: rel, Part: true})
	}
	w := &allowWalk{g: g, l: l, f: f, roots: map[string]bool{}, tracked: map[string]bool{}, storeTop: map[string]bool{}}
	var level []string
	for _, e := range l.Entries {
		if slices.Contains(allowScanned, e.Why) && e.Kind != invocation.KindSymlink {
			level = append(level, e.Path)
			w.roots[e.Path] = true
		}
	}
	var named []SecretFile
	w.found = func(sf SecretFile, ns []SecretFile) {
		named = append(named, ns...)
		if len(sf.Lines) == 0 {
			return
		}
		if x := g.hidden(sf.File, SourceAllowedSecret); x.Kind == invocation.KindFile && !alreadyUnreachable(x.Path, f) {
			out, files = append(out, x), append(files, sf)
		}
	}
	for depth := 0; len(level) > 0; depth++ {
		var rest []string
		level, rest = w.level(level, depth)
		if w.b.stopped != "" {
			w.unreadAll(rest, UnreadBudget)
			break
		}
	}
	var budget []string
	for _, u := range w.unread {
		x := g.hidden(u.File, SourceAllowedSecret)
		if invocation.Missing(x.Kind) || alreadyUnreachable(x.Path, f) || slices.ContainsFunc(out, func(y Hidden) bool { return y.Path == x.Path }) {
			continue
		}
		out, files = append(out, x), append(files, u)
		if u.Unread != UnreadTooLarge {
			budget = append(budget, u.Rel)
		}
	}
	xs, ns := g.hideNamed(h, f, named, SourceAllowedSecret, out)
	out, files = append(out, xs...), append(files, ns...)
	xs, ns, _ = g.gitStores(h, f, append(out, xs...))
	out, files = append(out, xs...), append(files, ns...)
	if len(budget) > 0 {
		notes = append(notes, unreadNote(w.b.stopped, budget))
	}
	return out, files, notes
}

// unreadNote says what the contents check hid because its budget or
// depth left it unread, and the setting that shows it.
func unreadNote(stopped string, rels []string) string {
	shown := rels
	if len(shown) > 8 {
		shown = shown[:8]
	}
	list := strings.Join(shown, ", ")
	if more := len(rels) - len(shown); more > 0 {
		list += fmt.Sprintf(" and %d more (--explain lists them)", more)
	}
	why := fmt.Sprintf("deeper than %d levels", maxAllowDepth)
	if stopped != "" {
		why = fmt.Sprintf("its budget (%d entries, %d files, %d bytes, breadth first) ran out at %s", maxAllowVisits, maxAllowReads, maxAllowBytes, stopped)
	}
	return fmt.Sprintf("the check of the allowed home entries' contents did not read %s (%s): hidden, as it could hold a credential; a build that needs one: home.allow: [%s] (shown unread)",
		list, why, shown[0])
}

// level checks one level of the allowed entries, breadth first (so a
// file near an entry's top is read before one deep down): it reads each
// file of level that is not a known binary (calling found), hides what
// it cannot read, and returns the entries of its directories, the next
// level; when the budget runs out, it returns the entries left unread
// (rest). It reads only the top files of the package stores
// (allowStore), reads the files git checkouts list (checkoutTracked;
// and their .git/config) within a budget of their own (tb) and shows
// them past it, and passes over
// HomeAllowedLeft, what home.allow names, the start-up files
// (rcSecrets reads them), and does not descend below maxAllowDepth. It
// looks through the facts' FS without recording: the files it only
// reads are not preconditions.
func (w *allowWalk) level(level []string, depth int) (next, rest []string) {
	g, b := w.g, &w.b
	for i, p := range level {
		rel, _ := strings.CutPrefix(p, w.l.Home+"/")
		if alreadyUnreachable(p, w.f) || depth > 0 && w.l.Allowed[rel] == HomeWhySettings {
			continue // home.allow shows what it names as it is
		}
		if b.visits++; b.visits > maxAllowVisits || b.reads >= maxAllowReads || b.bytes >= maxAllowBytes {
			b.stopped = p
			return nil, append(level[i:], next...)
		}
		switch g.fs.Lstat(p).Kind {
		case invocation.KindDir:
			store, tree := allowStore(rel)
			if w.storeTop[p] || depth > 0 && tree || slices.Contains(HomeAllowedLeft, rel) {
				continue // a store's directories and installed trees are shown as they are
			}
			names, err := g.fs.ReadDir(p)
			if err != nil || len(names) == 0 {
				continue
			}
			if depth > 0 && store { // its top files are read, its directories not entered
				for _, n := range names {
					w.storeTop[path.Join(p, n)] = true
					next = append(next, path.Join(p, n))
				}
				continue
			}
			if depth >= maxAllowDepth {
				w.unreadAll([]string{p}, UnreadDepth)
				continue
			}
			if slices.Contains(names, ".git") && g.fs.Lstat(path.Join(p, ".git")).Kind == invocation.KindDir {
				maps.Copy(w.tracked, g.checkoutTracked(p))
				next = append(next, path.Join(p, ".git", "config"))
			}
			for _, n := range names {
				next = append(next, path.Join(p, n))
			}
		case invocation.KindFile:
			rb := b
			if w.tracked[p] { // a budget of its own; past it, or too large, shown unread as installed
				if rb = &w.tb; rb.reads >= maxAllowReads || rb.bytes >= maxAllowBytes {
					continue
				}
			}
			if slices.Contains(ShellStartupFiles, rel) {
				continue
			}
			data, err := g.fs.ReadFile(p, magicBytes)
			if err != nil || knownBinary(data) {
				continue // an executable, an archive: shown as what it is
			}
			if rb.reads++; len(data) == magicBytes {
				if data, err = g.fs.ReadFile(p, maxAllowFile+1); err != nil {
					continue
				}
			}
			if len(data) > maxAllowFile {
				if !w.tracked[p] {
					w.unread = append(w.unread, SecretFile{File: p, Rel: rel, Unread: UnreadTooLarge})
				}
				continue
			}
			rb.bytes += len(data)
			sf, ns := secretLines(p, string(data))
			sf.Rel = rel
			w.found(sf, ns)
		}
	}
	return next, nil
}

// unreadAll records the entries ps (but the package stores and what
// home.allow names) as unread for why; past maxUnreadHidden, their
// parent directories stand for them (never above an allowed entry).
func (w *allowWalk) unreadAll(ps []string, why UnreadWhy) {
	var keep []string
	for _, p := range ps {
		rel, _ := strings.CutPrefix(p, w.l.Home+"/")
		if w.storeTop[p] && w.g.fs.Lstat(p).Kind == invocation.KindDir {
			continue // a store's directory: shown as it is
		}
		if store, tree := allowStore(rel); !store && !tree && w.l.Allowed[rel] != HomeWhySettings && !slices.Contains(HomeAllowedLeft, rel) &&
			!slices.Contains(ShellStartupFiles, rel) && !w.tracked[p] {
			keep = append(keep, p)
		}
	}
	for len(keep) > maxUnreadHidden {
		var up []string
		seen := map[string]bool{}
		for _, p := range keep {
			if !w.roots[p] {
				p = path.Dir(p)
			}
			if !seen[p] {
				seen[p] = true
				up = append(up, p)
			}
		}
		if len(up) == len(keep) {
			break
		}
		keep = up
	}
	for _, p := range keep {
		if slices.ContainsFunc(keep, func(q string) bool { return q != p && Within(p, q) }) {
			continue
		}
		rel, _ := strings.CutPrefix(p, w.l.Home+"/")
		w.unread = append(w.unread, SecretFile{File: p, Rel: rel, Unread: why})
	}
}

// gitStores hides the credential stores git's user configuration names
// (credential.helper = store --file FILE), in either home layout: git
// reads them on the host whether or not the sandbox shows the
// configuration, and the store itself may lie anywhere. The files read
// are ~/.gitconfig, git's XDG configuration ($XDG_CONFIG_HOME/git/config,
// else ~/.config/git/config) and $GIT_CONFIG_GLOBAL; hidden are the
// paths already hidden (not named twice).
func (g *gatherer) gitStores(h *Host, f *Facts, hidden []Hidden) (out []Hidden, files []SecretFile, notes []string) {
	xdg := path.Join(h.Home, ".config")
	if v := h.Getenv("XDG_CONFIG_HOME"); path.IsAbs(v) {
		xdg = v
	}
	cfgs := []string{path.Join(h.Home, ".gitconfig"), path.Join(xdg, "git", "config")}
	if v := h.Getenv("GIT_CONFIG_GLOBAL"); path.IsAbs(v) {
		cfgs = append(cfgs, v)
	}
	var named []SecretFile
	for _, c := range cfgs {
		data, err := g.fs.ReadFile(c, maxAllowFile+1)
		if err != nil || len(data) > maxAllowFile {
			continue
		}
		_, ns := secretLines(c, string(data))
		for _, n := range ns {
			if n.Rules[0] == secrets.RuleCredentialStore {
				named = append(named, n)
			}
		}
	}
	var all []Hidden
	all = append(all, hidden...)
	for _, n := range named {
		x, n, ok := g.namedSecret(h, f, n, SourceAllowedSecret)
		if !ok || slices.ContainsFunc(all, func(y Hidden) bool { return y.Path == x.Path }) {
			continue
		}
		all, out, files = append(all, x), append(out, x), append(files, n)
	}
	return out, files, nil
}
