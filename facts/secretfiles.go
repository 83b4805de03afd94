package facts

// This file turns the detector's findings (hazard/secrets) in a file the
// sandbox would be shown into what the compile hides: the file itself,
// and the files it names as holding a credential.

import (
	"path"
	"slices"
	"strings"

	"github.com/bwpolicy/bwpolicy/hazard/secrets"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// SecretFile is a file the sandbox would be shown that the compile hides
// because of a credential (H7): what the warning and --explain say about
// it, never the value.
type SecretFile struct {
	// File is the path hidden, as found; Rel is File relative to HOME
	// ("" when it lies outside), what home.allow would name.
	File, Rel string
	// Lines are the lines that hold a credential, with the rule that
	// found each (Rules[i] for Lines[i]); at most secrets.MaxFindings.
	// A text beyond the detector's bounds ends with
	// secrets.RuleUnexamined.
	Lines []int
	Rules []secrets.Rule
	// NamedBy is, for a file another one names as a credential store
	// (credential.helper = store --file FILE, NAME=$(cat FILE)), that
	// file; Line is the line there and Rules[0] the rule.
	NamedBy string
	Line    int
	// Part is true for a part of an allowed entry hidden whatever it
	// holds (HomeAllowedLeft).
	Part bool
	// Unread is, for an entry of an allowed directory hidden because
	// the contents check could not read it, why (UnreadNone otherwise).
	Unread UnreadWhy
	// Startup is true for a shell start-up file (ShellStartupFiles).
	Startup bool
}

// secretLines scans text, the content of file, and returns the lines that
// show a credential, and the files the text names as holding one.
func secretLines(file, text string) (sf SecretFile, named []SecretFile) {
	sf.File = file
	for _, x := range secrets.Scan(text) {
		if x.Redacts() {
			sf.Lines = append(sf.Lines, x.Line)
			sf.Rules = append(sf.Rules, x.Rule)
			continue
		}
		named = append(named, SecretFile{File: x.Path, NamedBy: file, Line: x.Line, Rules: []secrets.Rule{x.Rule}})
	}
	return sf, named
}

// namedSecret hides the file n names (n.File as written: ~/ and $HOME/
// stand for the home directory, a relative path is taken from it),
// wherever it is, unless it is out of reach already or missing. It
// returns the hidden path and n with File resolved.
func (g *gatherer) namedSecret(h *Host, f *Facts, n SecretFile, src Source) (Hidden, SecretFile, bool) {
	p := homePath(h, n.File)
	if p == "" {
		return Hidden{}, n, false // another variable or user: not a place the compile can name
	}
	if alreadyUnreachable(p, f) || f.HomeLayout.Hides(p) || allowedBySettings(f.HomeLayout, p) {
		return Hidden{}, n, false
	}
	x := g.hidden(p, src)
	if invocation.Missing(x.Kind) || alreadyUnreachable(x.Path, f) || f.HomeLayout.Hides(x.Path) {
		return Hidden{}, n, false
	}
	n.File = p
	n.Rel, _ = strings.CutPrefix(p, h.Home+"/")
	if n.Rel == p {
		n.Rel = ""
	}
	return x, n, true
}

// homePath resolves a path as a shell text writes it: ~/ and $HOME/
// stand for the home directory, a relative path is taken from it; ""
// for another variable or user's home.
func homePath(h *Host, p string) string {
	for _, pre := range []string{"~/", "$HOME/", "${HOME}/"} {
		if rest, ok := strings.CutPrefix(p, pre); ok {
			p = path.Join(h.Home, rest)
		}
	}
	if strings.HasPrefix(p, "$") || strings.HasPrefix(p, "~") {
		return ""
	}
	if !path.IsAbs(p) {
		p = path.Join(h.Home, p)
	}
	return path.Clean(p)
}

// hideNamed hides each of the files named (namedSecret) for src; a
// file already in hidden (its own content found) is only noted.
func (g *gatherer) hideNamed(h *Host, f *Facts, named []SecretFile, src Source, hidden []Hidden) (out []Hidden, files []SecretFile) {
	for _, n := range named {
		x, n, ok := g.namedSecret(h, f, n, src)
		if !ok {
			continue
		}
		if !slices.ContainsFunc(hidden, func(y Hidden) bool { return y.Path == x.Path }) {
			out = append(out, x)
		}
		files = append(files, n)
	}
	return out, files
}

// allowedBySettings: p is, or lies in, what home.allow names (shown as
// the user asked).
func allowedBySettings(l *HomeLayout, p string) bool {
	if !l.Active() {
		return false
	}
	for rel, why := range l.Allowed {
		if why == HomeWhySettings && Within(p, path.Join(l.Home, rel)) {
			return true
		}
	}
	return false
}
