package compiler

// This file mounts the home layout (H10, facts.HomeLayout): each rebuilt
// directory a tmpfs, each entry bound back at its own path, a symlink
// entry recreated as the same symlink. The items join the host binds,
// so the depth order keeps a deeper working directory or bind on top of
// them and them on top of anything above HOME.

import (
	"fmt"
	"path"
	"strings"

	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/settings"
)

// homeLayoutBinds returns the layout's mounts; skip are the destinations
// a host bind mounts anyway (the working directory ~/proj is bound
// read-write; its read-only entry bind would be covered).
func (e *emitter) homeLayoutBinds(skip map[string]bool) []hostBind {
	l := e.f.HomeLayout
	if !l.Active() {
		return nil
	}
	pos := "built in: home.layout " + settings.HomeAllowlist
	if s := e.st.res.Settings; s.Home != nil && s.Home.Layout != "" {
		pos = e.settingsPos("home", "layout")
	}
	out := make([]hostBind, 0, len(l.Dirs)+len(facts.HomeCacheFresh)+len(l.Entries)) // a hostBind is large: grown by appends, it would be copied over and over
	for _, d := range l.Dirs {
		rel := strings.TrimPrefix(strings.TrimPrefix(d, l.Home), "/")
		what := "HOME"
		if rel != "" {
			what = "~/" + rel
		}
		out = append(out, hostBind{dest: d, kind: "home-tmpfs", pos: pos,
			reason: fmt.Sprintf("home layout: %s is a fresh tmpfs; only %s are bound back, %s", what, boundWhat(rel), leftOut(l, d))})
		if rel == ".cache" {
			// The tool build caches: each a tmpfs of its own, so they
			// stay writable (and start empty) once ~/.cache is sealed.
			for _, name := range facts.HomeCacheFresh {
				out = append(out, hostBind{dest: path.Join(d, name), kind: "home-tmpfs", pos: pos,
					reason: fmt.Sprintf("home layout: ~/.cache/%s, a tool build cache, is a fresh writable tmpfs: it starts empty in every command and nothing cached there reaches the host", name)})
			}
		}
	}
	for _, en := range l.Entries {
		if skip[en.Path] || e.insideHidden(en.Path) {
			continue // mounted anyway, or masked: a mask at or above it hides it
		}
		name := "~/" + strings.TrimPrefix(en.Path, l.Home+"/")
		hb := hostBind{dest: en.Path, src: en.Path, rw: en.Writable, kind: "home-entry", pos: entryPos(e, en)}
		switch {
		case en.Kind == invocation.KindSymlink:
			hb.kind, hb.src, hb.rw = "home-link", en.Target, false
			hb.reason = fmt.Sprintf("home entry %s (%s) is a symlink to %s, recreated as the same symlink (not followed)", name, en.Why, en.Target)
		case en.Writable:
			hb.reason = fmt.Sprintf("home entry %s (%s), read-write: the writable set covers it", name, en.Why)
			hb.groupReason = fmt.Sprintf("home entries (%s), read-write: the writable set covers them", en.Why)
		default:
			hb.reason = fmt.Sprintf("home entry %s (%s), read-only", name, en.Why)
			hb.groupReason = fmt.Sprintf("home entries (%s), read-only", en.Why)
		}
		if hb.groupReason != "" && en.Why != facts.HomeWhyPath {
			hb.group = en.Why + "|" + hb.groupReason
			hb.groupPos = entryPos(e, en)
			if en.Why == facts.HomeWhyNonDot {
				hb.groupPos = "host: each exists"
			}
		}
		out = append(out, hb)
	}
	return out
}

// homeRemounts makes the layout's tmpfs directories read-only, innermost
// first, once every mount inside them is made (bwrap creates a mount
// point in them as it goes): a write to a name the layout does not bind
// back (~/newfile, ~/.ssh2, ~/.config/probe, ~/.cache/y) fails with EROFS
// instead of landing in a tmpfs that vanishes after the command. The
// entries bound back keep their own mode (the remount is not
// recursive), and so do the tool build caches of ~/.cache
// (facts.HomeCacheFresh), each a writable tmpfs of its own.
func (e *emitter) homeRemounts() {
	l := e.f.HomeLayout
	if !l.Active() {
		return
	}
	pos := "built in: home.layout " + settings.HomeAllowlist
	if s := e.st.res.Settings; s.Home != nil && s.Home.Layout != "" {
		pos = e.settingsPos("home", "layout")
	}
	for i := len(l.Dirs) - 1; i >= 0; i-- {
		d := l.Dirs[i]
		if e.insideHidden(d) {
			continue
		}
		what := "HOME"
		if d != l.Home {
			what = "~/" + strings.TrimPrefix(d, l.Home+"/")
		}
		e.p.add("H10", fmt.Sprintf("home layout: %s's tmpfs is read-only: a write to a name that is not bound back fails (EROFS) instead of vanishing after the command", what), pos, "--remount-ro", d)
	}
}

// boundWhat says what a rebuilt directory gets back.
func boundWhat(rel string) string {
	switch rel {
	case "":
		return "its non-dot entries and the allowed dot entries"
	case ".cache":
		return "the entries of facts.HomeCacheShown (browser builds, native headers, tool environments, models), read-only; the tool build caches (go-build, pip, uv, …) are each a fresh tmpfs of their own, so tools work and nothing they cache reaches the host; the rest is left out (a CLI's login, an agent's logs),"
	}
	return "its allowed entries"
}

// leftOut names the entries of d the layout leaves out.
func leftOut(l *facts.HomeLayout, d string) string {
	var names []string
	for _, p := range l.Left {
		if path.Dir(p) == d {
			names = append(names, path.Base(p))
		}
	}
	if len(names) == 0 {
		return "nothing is left out"
	}
	const show = 12
	list := strings.Join(names[:min(show, len(names))], ", ")
	if len(names) > show {
		list += fmt.Sprintf(" and %d more", len(names)-show)
	}
	return fmt.Sprintf("%d left out (absent: %s)", len(names), list)
}

// entryPos is the explain source of an entry.
func entryPos(e *emitter, en facts.HomeEntry) string {
	switch en.Why {
	case facts.HomeWhySettings:
		return e.settingsPos("home", "allow")
	case facts.HomeWhyPath:
		return "host: $PATH names " + en.Path
	case facts.HomeWhyBuiltin:
		return "built in: facts.HomeAllowed"
	}
	return "host: " + en.Path + " exists"
}

// homeEntryRun writes the run of home entries at the start of bs that
// share a group as one explain row (one bwrap option each, as before),
// and returns how many it wrote; 0 when bs does not start with a run of
// two or more. A home of 200 entries is then one row, not 200: the
// invocation bwrun reads on every command stays small.
func (e *emitter) homeEntryRun(bs []hostBind, opt string) int {
	g := bs[0]
	n := 0
	for n < len(bs) && bs[n].kind == "home-entry" && g.group != "" && bs[n].group == g.group {
		n++
	}
	if n < 2 {
		return 0
	}
	var args, names []string
	for _, b := range bs[:n] {
		args = append(args, opt, b.src, b.dest)
		names = append(names, "~/"+strings.TrimPrefix(b.dest, e.f.HomeLayout.Home+"/"))
		if b.rw {
			e.writable = append(e.writable, b.dest)
		}
	}
	const show = 12
	list := strings.Join(names[:min(show, n)], ", ")
	if n > show {
		list += fmt.Sprintf(" and %d more", n-show)
	}
	e.p.add(invocation.ReasonHomeLayout, fmt.Sprintf("%d %s: %s", n, g.groupReason, list), g.groupPos, args...)
	return n
}
