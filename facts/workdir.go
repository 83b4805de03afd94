package facts

import (
	"path"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/settings"
)

// This file resolves the working directory (S9, R5–R7) and the
// settings' binds (R3, R4, R9–R11) against the host.

func (g *gatherer) cwd(h *Host, s *settings.Settings, hidden []Hidden, ph *Path) Cwd {
	c := Cwd{Requested: s.Cwd, Explicit: s.Cwd != ""}
	if !c.Explicit {
		c.Requested = h.ProcessCwd
	}
	c.Path = absFrom(h.Home, c.Requested)
	if ph != nil { // HERMES_HOME/home is bound back: only what hides the cwd inside it counts
		// Only a cwd whose real path lies in the bound profile home: one
		// reached through a link there that leads elsewhere in the Hermes
		// home is judged like any other (R6).
		if real := g.path(c.Path).Real; Within(real, ph.Real) {
			c.InProfileHome = true
			var inside []Hidden
			for _, x := range hidden {
				if !Within(ph.Path, x.Entry) && !Within(ph.Real, x.Path) {
					inside = append(inside, x)
				}
			}
			hidden = inside
		}
	}
	for _, x := range hidden {
		if invocation.Missing(x.Kind) && x.Path == x.Entry {
			if Within(c.Path, x.Entry) {
				c.HiddenBy = x.Entry
			}
			continue
		}
		if Within(c.Path, x.Entry) || Within(c.Path, x.Path) {
			c.HiddenBy = x.Entry
		}
	}
	real := g.path(c.Path)
	if c.HiddenBy == "" {
		for _, x := range hidden {
			if !invocation.Missing(x.Kind) && Within(real.Real, x.Path) {
				c.HiddenBy = x.Entry
			}
		}
	}
	if c.HiddenBy != "" {
		c.InProfileHome = false
	}
	if c.HiddenBy != "" && !c.Explicit {
		c.FellBack = "home"
		c.Path = h.Home
		real = g.path(c.Path)
	}
	c.Real = real.Real
	c.Exists = real.Kind == invocation.KindDir
	// A directory this user cannot search cannot be entered: "DIR/."
	// goes through it (not recorded: it is no path of the host's).
	c.Denied = real.Kind == invocation.KindDenied || (c.Exists && g.fs.Lstat(c.Real+"/.").Kind != invocation.KindDir)
	if c.Denied {
		c.Exists = false
	}
	c.RunDir = c.Real
	// The nearest parent that exists and can be entered: the parent of
	// a denied path is the directory that denies search, and is skipped.
	prevDenied := real.Kind == invocation.KindDenied
	for !c.Exists && c.RunDir != "/" {
		c.RunDir = path.Dir(c.RunDir)
		k := g.lstat(c.RunDir).Kind
		if k == invocation.KindDir && !prevDenied {
			break
		}
		prevDenied = k == invocation.KindDenied
	}
	return c
}

func (g *gatherer) bind(i int, b settings.Bind) Bind {
	out := Bind{Index: i, Src: b.Src, Dest: b.Target(), Readonly: b.IsReadonly(),
		SrcAbs: path.IsAbs(b.Src), DestAbs: path.IsAbs(b.Target())}
	// The rules compare paths as strings: absolute ones are published
	// clean ("/." is "/", "/a//b/../c" is "/a/c"), as every other path of
	// the facts is.
	if out.SrcAbs {
		out.Src = path.Clean(out.Src)
	}
	if out.DestAbs {
		out.Dest = path.Clean(out.Dest)
	}
	if out.SrcAbs {
		sp := g.path(path.Clean(b.Src))
		out.SrcReal, out.SrcKind, out.SrcHasLink = sp.Real, sp.Kind, sp.HasLink
		// A bind at its own path (dest omitted) through a symlink is
		// mounted at the link's target, resolved once here: the link is
		// a precondition (its change makes the invocation stale), and
		// bwrap never resolves it again.
		if b.Dest == "" && sp.HasLink && !invocation.Missing(sp.Kind) {
			out.Dest, out.DestResolved = sp.Real, true
		}
	}
	if out.DestAbs {
		d := path.Clean(out.Dest)
		out.DestKind = g.lstat(d).Kind
		dp := g.path(d)
		out.DestReal, out.DestHasLink = dp.Real, dp.HasLink
	}
	return out
}
