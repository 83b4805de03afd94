package compiler

// This file binds back what facts.Exceptions lists: the paths inside the
// masks that stay reachable, each at its own place (S6, S8).

import (
	"fmt"
	"path"
	"strings"

	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// exceptions binds each of facts.Exceptions back, after the masks. The
// facts stage decided which (one condition, facts.computeExceptions);
// this says how and why.
//
// With --sandbox-id, one environment reaches its own state directory
// read-write in every profile (Hermes writes its shell snapshot and cwd
// file there; nothing in them runs on the host), its own scratch
// directory writable like the working directory (read-only under
// restricted), and the staged-data roots read-only; every other
// sandboxes/bwrap-* and scratch directory stays inside the mask. The
// shared scratch is then the mask's empty, read-only directory that
// holds only this environment's mount point. Without an ID none of them
// is bound back.
func (e *emitter) exceptions() {
	for _, x := range e.f.Exceptions {
		opt := "--ro-bind"
		if x.Writable {
			opt = "--bind"
		}
		row := facts.ProtectionOf(x.Source)
		if row.Role != facts.RoleException {
			e.fail(fmt.Errorf("exception %s of row %s, whose role is %s, not an exception", x.Path, row.Source, row.Role))
			return
		}
		why, src := e.exceptionText(x)
		e.p.add(row.Rule, why, src, opt, x.Path, x.Path)
		if x.Writable {
			e.writable = append(e.writable, x.Path)
		}
		if x.Source == facts.SourceProfileHome && x.Writable {
			e.profileHomeProtections(x.Path)
		}
	}
	e.exposeRoots()
}

// exposeRoots declares what `bwrun --expose` may show: with a sandbox ID,
// one oversized tool result (HERMES_HOME/cache/spillover/<file>) per run;
// the directory itself stays hidden. Its path is the state directory's
// real HERMES_HOME (it must end in sandboxes/bwrap-<ID>), so no symlink
// below it leads elsewhere; bwrun refuses any symlink on the way.
func (e *emitter) exposeRoots() {
	sb := e.f.Sandbox
	if sb == nil || sb.State.Kind != invocation.KindDir || !strings.HasSuffix(sb.State.Real, "/sandboxes/bwrap-"+sb.ID) {
		return
	}
	spill := path.Join(strings.TrimSuffix(sb.State.Real, "/sandboxes/bwrap-"+sb.ID), "cache", "spillover")
	if e.f.InsideMaskedDir(spill) {
		e.expose = &invocation.Expose{Roots: []string{spill}, BindFD: e.f.Bwrap.Has("--ro-bind-fd")}
	}
}

// exceptionText is the explain reason and source of exception x.
func (e *emitter) exceptionText(x facts.Exception) (why, src string) {
	row := facts.ProtectionOf(x.Source)
	src = row.ExplainSource
	sandbox := func(rel string) string {
		src := e.settingsPos("sandbox_id") // the flag's position when --sandbox-id set it
		if e.st.req.SandboxID != "" {
			src += " " + e.f.Sandbox.ID
		}
		return src + " (host: HERMES_HOME/" + rel + ")"
	}
	switch x.Source {
	case facts.SourceSandboxState:
		return "this environment's state directory (shell snapshot, cwd file) is readable and writable; other environments' are hidden", sandbox("sandboxes/bwrap-" + e.f.Sandbox.ID)
	case facts.SourceSandboxScratch:
		if !x.Writable {
			return "this environment's private scratch directory is readable, read-only like the working directory (TMPDIR is the sandbox's /tmp); the shared scratch and other environments' are not visible", sandbox("cache/scratch/hermes-bwrap-" + e.f.Sandbox.ID)
		}
		return "this environment's private scratch directory (TMPDIR) is readable and writable; the shared scratch and other environments' are not visible", sandbox("cache/scratch/hermes-bwrap-" + e.f.Sandbox.ID)
	case facts.SourceStaged:
		if e.f.StagedSession {
			return "this session's staged files are readable, read-only, at their host path; other sessions' are hidden (staged: session)",
				e.settingsPos("staged") + " (host: HERMES_HOME/" + facts.StagedRoots[x.Staged] + "/" + e.f.Sandbox.ID + ")"
		}
		return "Hermes' staged files (every session's) are readable, read-only, at their host path", "host: HERMES_HOME/" + facts.StagedRoots[x.Staged]
	case facts.SourceProfileHome:
		if x.Writable {
			return "home_mode profile: HERMES_HOME/home is HOME, readable and writable", e.settingsPos("home_mode")
		}
		return "home_mode profile: HERMES_HOME/home is HOME, read-only like the working directory", e.settingsPos("home_mode")
	case facts.SourceCABundle:
		return "CA bundle named by " + x.Var + " sits in a hidden path: bound back read-only so TLS keeps working", strings.ReplaceAll(src, "{var}", x.Var)
	}
	panic("compiler: no explain text for exception source " + string(x.Source))
}
