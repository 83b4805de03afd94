package facts

// This file checks the contents of what the home layout shows (H7, H10):
// an allowed directory is allowed for what tools keep in it, not for a
// credential someone put there. Its parts that hold credentials by
// nature (HomeAllowedLeft: logs) are hidden; its text files are read by
// the detector (hazard/secrets) within a budget, and a file with a
// credential is hidden, as is a file one of them names as a credential
// store.

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/bwpolicy/bwpolicy/hazard/secrets"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// The budget of the contents check, per compile: the entries looked at,
// the files read, the bytes read, a file's size (a larger file is not
// configuration written by hand: it is not read), and the depth below
// an allowed entry. The entries are checked breadth first (~/.gradle's
// init.gradle before a file three directories down).
const (
	maxAllowVisits = 1024
	maxAllowReads  = 32
	maxAllowBytes  = 256 << 10
	maxAllowFile   = 32 << 10
	maxAllowDepth  = 4
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

// allowedSecrets hides, in the entries the home layout binds back, the
// parts of HomeAllowedLeft and each text file the detector finds a
// credential in, and the files they name as credential stores (and
// those git's configuration names: gitStores); notes say when the
// budget ran out.
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
	var level []string
	for _, e := range l.Entries {
		if slices.Contains(allowScanned, e.Why) && e.Kind != invocation.KindSymlink {
			level = append(level, e.Path)
		}
	}
	b := &allowBudget{}
	var named []SecretFile
	found := func(sf SecretFile, ns []SecretFile) {
		named = append(named, ns...)
		if len(sf.Lines) == 0 {
			return
		}
		if x := g.hidden(sf.File, SourceAllowedSecret); x.Kind == invocation.KindFile && !alreadyUnreachable(x.Path, f) {
			out, files = append(out, x), append(files, sf)
		}
	}
	for depth := 0; len(level) > 0 && b.stopped == ""; depth++ {
		level = g.allowLevel(l, f, level, depth, b, found)
	}
	xs, ns := g.hideNamed(h, f, named, SourceAllowedSecret, out)
	out, files = append(out, xs...), append(files, ns...)
	xs, ns, _ = g.gitStores(h, f, append(out, xs...))
	out, files = append(out, xs...), append(files, ns...)
	if b.stopped != "" {
		notes = append(notes, fmt.Sprintf("the check of the allowed home entries' contents stopped at %s (its budget: %d entries, %d files, %d bytes, breadth first): what lies beyond is shown unchecked; hide a directory that holds credentials (hide: [the path])",
			b.stopped, maxAllowVisits, maxAllowReads, maxAllowBytes))
	}
	return out, files, notes
}

// allowLevel checks one level of the allowed entries, breadth first
// (so a file near an entry's top is read before one deep down): it reads
// each text file of level (calling found) and returns the entries of its
// directories, the next level. It passes over the names of
// allowScanSkip and HomeAllowedLeft, what home.allow names, the
// start-up files (rcSecrets reads them) and binaryName, and does not
// descend below maxAllowDepth. It looks through the facts' FS without
// recording: the files it only reads are not preconditions.
func (g *gatherer) allowLevel(l *HomeLayout, f *Facts, level []string, depth int, b *allowBudget, found func(SecretFile, []SecretFile)) (next []string) {
	for _, p := range level {
		rel, _ := strings.CutPrefix(p, l.Home+"/")
		if alreadyUnreachable(p, f) || depth > 0 && l.Allowed[rel] == HomeWhySettings {
			continue // home.allow shows what it names as it is
		}
		if b.visits++; b.visits > maxAllowVisits || b.reads >= maxAllowReads || b.bytes >= maxAllowBytes {
			b.stopped = p
			return nil
		}
		switch g.fs.Lstat(p).Kind {
		case invocation.KindDir:
			if depth >= maxAllowDepth || depth > 0 && slices.Contains(allowScanSkip, path.Base(p)) || slices.Contains(HomeAllowedLeft, rel) {
				continue
			}
			if names, err := g.fs.ReadDir(p); err == nil {
				for _, n := range names {
					next = append(next, path.Join(p, n))
				}
			}
		case invocation.KindFile:
			if slices.Contains(ShellStartupFiles, rel) || binaryName(p) {
				continue
			}
			b.reads++
			data, err := g.fs.ReadFile(p, maxAllowFile+1)
			if err != nil || len(data) > maxAllowFile {
				continue
			}
			b.bytes += len(data)
			if bytes.IndexByte(data[:min(len(data), 8192)], 0) >= 0 {
				continue // not text
			}
			sf, ns := secretLines(p, string(data))
			sf.Rel = rel
			found(sf, ns)
		}
	}
	return next
}

// binaryName: the file's extension says it is not configuration a
// person writes a credential into: archives, objects, images, compiled
// code, and the source and documentation files of installed tools
// (nvm's, pyenv's, a package's); it is not read.
func binaryName(p string) bool {
	switch path.Ext(p) {
	case ".gz", ".tgz", ".xz", ".zst", ".bz2", ".zip", ".jar", ".whl", ".tar", ".so", ".a", ".o", ".dylib", ".dll",
		".exe", ".pyc", ".class", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico", ".woff", ".woff2", ".ttf", ".otf",
		".wasm", ".node", ".db", ".sqlite", ".bin", ".pack", ".idx",
		".js", ".mjs", ".cjs", ".ts", ".map", ".py", ".pyi", ".rb", ".pl", ".pm", ".go", ".rs", ".c", ".h", ".cc",
		".java", ".kt", ".md", ".rst", ".html", ".css", ".svg", ".1", ".fish", ".zsh", ".bash":
		return true
	}
	return false
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
	if v := h.Env["XDG_CONFIG_HOME"]; path.IsAbs(v) {
		xdg = v
	}
	cfgs := []string{path.Join(h.Home, ".gitconfig"), path.Join(xdg, "git", "config")}
	if v := h.Env["GIT_CONFIG_GLOBAL"]; path.IsAbs(v) {
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
