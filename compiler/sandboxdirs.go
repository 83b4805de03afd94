package compiler

import (
	"strings"

	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/runtime"
)

// sandboxDirs binds back, into the masked Hermes home, what one
// environment (compile --sandbox-id) may reach: its own state directory
// and its own scratch directory read-write in every profile (Hermes
// writes its shell snapshot and cwd file there; nothing in them runs on
// the host), and the staged-data roots read-only. Every other
// sandboxes/bwrap-* and every other scratch directory stays inside the
// mask: invisible. The shared scratch is the mask's empty, read-only
// directory that holds only this environment's mount point.
func (e *emitter) sandboxDirs() {
	sb := e.f.Sandbox
	src := e.settingsPos("sandbox_id")
	if e.st.req.SandboxID != "" {
		src += " " + sb.ID
	}
	for _, d := range []struct {
		p   facts.Path
		why string
		rel string
	}{
		{sb.State, "this environment's state directory (shell snapshot, cwd file) is readable and writable; other environments' are hidden", "sandboxes/bwrap-" + sb.ID},
		{sb.Scratch, "this environment's private scratch directory (TMPDIR) is readable and writable; the shared scratch and other environments' are not visible", "cache/scratch/hermes-bwrap-" + sb.ID},
	} {
		// HERMES_HOME itself may be a link; the components below it may
		// not lead anywhere else (another environment's directory).
		if d.p.Kind != runtime.KindDir || !strings.HasSuffix(d.p.Real, "/"+d.rel) || !e.insideMask(d.p.Real) {
			continue
		}
		e.p.add("S6", d.why, src+" (host: HERMES_HOME/"+d.rel+")", "--bind", d.p.Real, d.p.Real)
		e.writable = append(e.writable, d.p.Real)
	}
	for i, r := range e.f.Staged {
		if r.Kind != runtime.KindDir || r.HasLink || !e.insideMask(r.Real) {
			continue
		}
		e.p.add("S6", "Hermes' staged files (every session's) are readable, read-only, at their host path", "host: HERMES_HOME/"+facts.StagedRoots[i], "--ro-bind", r.Real, r.Real)
	}
}
