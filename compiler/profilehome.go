package compiler

// This file keeps what runs later read-only inside the profile home.

import (
	"path"
	"strings"

	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// profileHomeProtections keeps the protected entries of the writable
// profile home ph (home_mode: profile) read-only, as in a home-directory
// working directory (H9): the profile home is shared by every command
// and backend of the Hermes profile, so its rc files, autostart entries,
// user services and ~/.local/bin must not be a way into the next
// command. Each parent below ph is pinned (bound onto itself) first, so
// an entry can be neither changed nor renamed away. Entries that do not
// exist are recorded; one a command creates is set aside by bwrun after
// the command (runtime.ScanGit).
func (e *emitter) profileHomeProtections(ph string) {
	pinned := map[string]bool{}
	var pins, binds [][2]string
	for _, p := range e.f.Protected {
		if p.BindIndex != facts.ProfileHomeIndex || p.Symlink || p.Allowed || e.hiddenInside(p.Path, ph) {
			continue
		}
		rel := strings.TrimPrefix(p.Path, ph+"/")
		for dir := path.Dir(p.Path); dir != ph && facts.Within(dir, ph); dir = path.Dir(dir) {
			if !pinned[dir] {
				pinned[dir] = true
				pins = append(pins, [2]string{dir, "pin: a parent of " + rel + " in the profile home, bound onto itself so it cannot be renamed"})
			}
		}
		name := rel
		switch p.Name {
		case "core.hooksPath":
			name += " (core.hooksPath)"
		case facts.PythonHookName:
			name += " (a python start-up hook)"
		}
		binds = append(binds, [2]string{p.Path, name + " stays read-only in the profile home: every later command of the profile runs it"})
	}
	// Shallow pins first, so a deeper one is not covered by a later one.
	for depth := 1; len(pins) > 0; depth++ {
		rest := pins[:0]
		for _, pn := range pins {
			if strings.Count(strings.TrimPrefix(pn[0], ph), "/") == depth {
				e.p.add(invocation.ReasonPins, pn[1], "host: "+pn[0]+" holds a protected entry", "--bind", pn[0], pn[0])
			} else {
				rest = append(rest, pn)
			}
		}
		pins = rest
	}
	for _, b := range binds {
		e.p.add(invocation.ReasonProtectedEntries, b[1], "host: "+b[0]+" exists", "--ro-bind", b[0], b[0])
	}
}

// hiddenInside reports whether p lies in a present hidden path that is
// itself inside dir (the profile home lies in the hidden Hermes home and
// is bound back; only what is hidden within it stays masked).
func (e *emitter) hiddenInside(p, dir string) bool {
	for _, h := range e.present() {
		if facts.Within(h.Path, dir) && facts.Within(p, h.Path) {
			return true
		}
	}
	return false
}
