package compiler

// This file holds the mount plan: the host root and fresh /dev, /proc and
// /tmp, the host binds and pins, the masks, the exceptions bound back into
// them and the read-only remounts, in the order that keeps every
// protection on top.

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/settings"
)

func (e *emitter) baseFilesystem() {
	src := e.profilePos("root")
	e.p.add(invocation.ReasonFilesystem, "the host root, read-only, at the host paths", src, "--ro-bind", "/", "/")
	tmpSrc := "built in: tmp_mb " + fmt.Sprint(settings.DefaultTmpMB)
	if e.st.res.Settings.TmpMB != nil {
		tmpSrc = e.settingsPos("tmp_mb")
	}
	e.p.add(invocation.ReasonFilesystem, "a fresh minimal /dev (device nodes, /dev/pts) and a private /proc (no host processes visible)", src, "--dev", "/dev", "--proc", "/proc")
	// bwrap's init (pid 1) runs as the caller's user and is dumpable:
	// without Yama a command could write its code through /proc/1/mem
	// (ptrace and process_vm_writev are refused by seccomp, H2) and take
	// it over. /proc/1 is the init from bwrap's set-up on (the set-up
	// process becomes it), so both names of its memory can be masked.
	e.p.add(invocation.ReasonOneSandboxPerCommand, "the memory of the sandbox's pid 1 (bwrap's init) is unreachable: a command cannot take it over through /proc/1/mem", src,
		"--ro-bind", "/dev/null", "/proc/1/mem", "--ro-bind", "/dev/null", "/proc/1/task/1/mem")
	e.tmpfs(invocation.ReasonFilesystem, "/dev/shm, the one writable place under /dev, its own tmpfs", tmpSrc, "/dev/shm", e.tmpBytes())
	e.p.add(invocation.ReasonFilesystem, "/dev read-only: bwrap's /dev is an unbounded tmpfs; /dev/null, /dev/zero, /dev/pts and /dev/shm are mounts of their own and keep working", src, "--remount-ro", "/dev")
	e.tmpfs(invocation.ReasonFilesystem, "a fresh /tmp per command", tmpSrc, "/tmp", e.tmpBytes())
	e.writable = append(e.writable, "/tmp")
}

// hostBind is one bind of a host path: the working directory, a user
// bind or a pin.
type hostBind struct {
	dest, src string
	rw        bool
	kind      string // "bind", "cwd" or "pin"
	reason    string
	pos       string
	bind      *facts.Bind // a user's bind (kind "bind"): e.f.Binds' own
	// group, when set, is shared by home entries that one explain row
	// can describe together (same reason and source but for the name):
	// a run of them in mount order is written as one row (homeEntryRun).
	group, groupReason, groupPos string
}

// hostBinds mounts the working directory, the user's binds and the pins,
// parents before children, so no bind covers a deeper one (a bind at
// /home/u must not cover the working directory /home/u/proj). At the same
// depth the user's binds come first and the working directory last.
//
// Pins (S7): every directory between a mask and the writable mount that
// holds it is bound onto itself: renaming a mount point fails with EBUSY,
// so a command cannot move the parent and expose or replace the hidden
// path. A directory inside a read-only mount needs no pin.
func (e *emitter) hostBinds() {
	var bs []hostBind
	for i := range e.f.Binds {
		b := &e.f.Binds[i]
		if _, dropped := e.drop[b.Index]; dropped {
			continue
		}
		hb := hostBind{dest: path.Clean(b.Dest), src: path.Clean(b.SrcReal), rw: !b.Readonly, kind: "bind",
			pos: e.settingsPos("binds", b.Index), bind: b}
		hb.reason = fmt.Sprintf("extra bind binds[%d], read-only", b.Index)
		if hb.rw {
			hb.reason = fmt.Sprintf("extra bind binds[%d], read-write", b.Index)
		}
		if b.DestResolved {
			hb.reason += fmt.Sprintf(" (%s is a symlink: mounted at its target, resolved at compile; a change of the link makes the invocation stale)", b.Src)
		}
		bs = append(bs, hb)
	}
	// A working directory in the profile home is writable through the
	// profile home's own bind (exceptions), which comes after the mask
	// of the Hermes home that would cover a bind here.
	if c := e.f.Cwd; c.Exists && e.st.res.Profile.CwdWritable && !c.InProfileHome && !(e.f.HomeLayout.Active() && c.Real == e.f.HomeLayout.Home) {
		bs = append(bs, hostBind{dest: c.Real, src: c.Real, rw: true, kind: "cwd",
			reason: "the working directory is the writable set", pos: e.cwdSource()})
	}
	bs = append(bs, e.protections()...)
	dests := map[string]bool{}
	for _, b := range bs {
		dests[b.dest] = true
	}
	bs = append(bs, e.homeLayoutBinds(dests)...)
	bs = orderHostBinds(bs)
	bs = append(bs, e.pinsFor(bs)...)
	bs = orderHostBinds(bs)
	for i := 0; i < len(bs); i++ {
		b := bs[i]
		opt := "--ro-bind"
		if b.rw {
			opt = "--bind"
		}
		if n := e.homeEntryRun(bs[i:], opt); n > 0 {
			i += n - 1
			continue
		}
		switch b.kind {
		case "home-tmpfs":
			e.tmpfs(invocation.ReasonHomeLayout, b.reason, b.pos, b.dest, e.tmpBytes())
		case "home-link":
			e.p.add(invocation.ReasonHomeLayout, b.reason, b.pos, "--symlink", b.src, b.dest)
		case "home-entry":
			e.p.add(invocation.ReasonHomeLayout, b.reason, b.pos, opt, b.src, b.dest)
			if b.rw {
				e.writable = append(e.writable, b.dest)
			}
		case "cwd":
			e.p.add(invocation.ReasonWorkingDirectory, b.reason, b.pos, opt, b.src, b.dest)
			e.writable = append(e.writable, b.dest)
		case "pin":
			e.p.add(invocation.ReasonPins, b.reason, b.pos, opt, b.src, b.dest)
		case "protect":
			e.p.add(invocation.ReasonProtectedEntries, b.reason, b.pos, opt, b.src, b.dest)
		default:
			e.p.add(invocation.ReasonBinds, b.reason, b.pos, opt, b.src, b.dest)
			e.keptBinds = append(e.keptBinds, *b.bind)
			if b.rw {
				e.writable = append(e.writable, b.dest)
			}
		}
	}
}

// protections keeps the entries of facts.ProtectedNames found in a
// writable directory read-only (H9; protect.allow's names were checked
// by the policy stage, and facts marked the entries it names Allowed): each is bound read-only onto itself
// after the directory, and its parents below the directory are pinned
// (pinsFor), so it can be neither changed nor renamed away. Entries
// reached through a symlink (warned by the policy), inside a dropped
// bind, inside a hidden path or left out by the home layout (binding it
// would show it) are left out.
func (e *emitter) protections() []hostBind {
	var out []hostBind
	for _, p := range e.f.Protected {
		if p.Symlink || p.Allowed || p.BindIndex == facts.ProfileHomeIndex {
			continue
		}
		dest, rootDest := e.placeOf(p)
		// A hidden path's mask and the home layout's left-out entries
		// cover the host path at its own place only: a bind mounted
		// elsewhere shows it at dest all the same (the third review
		// wrote ~/.config/autostart through a bind of ~/.config
		// elsewhere, under the allowlist layout that leaves it out).
		if dest == p.Path && (e.insideHidden(p.Path) || e.f.HomeLayout.Hides(p.Path)) || e.shadowedByBind(dest, rootDest) {
			continue
		}
		if _, dropped := e.drop[p.BindIndex]; dropped && p.BindIndex >= 0 {
			continue
		}
		what := "the working directory"
		if p.BindIndex >= 0 {
			what = fmt.Sprintf("binds[%d]", p.BindIndex)
		}
		rel := strings.TrimPrefix(p.Path, p.Root+"/")
		switch p.Name {
		case "core.hooksPath":
			rel += " (core.hooksPath)"
		case "include":
			rel += " (included by a git configuration)"
		case facts.GitPointerName:
			rel += " (a git pointer to the configuration and hooks git runs)"
		case facts.PythonHookName:
			rel += " (a python start-up hook: every python with this home runs it)"
		case facts.AllowPath:
			rel += " (a directory on PATH: the host's shells run what is there)"
		case facts.HomeLinkTarget:
			rel += " (on the symlink chain of a home dot entry: the host's shells, session and tools read it)"
		}
		reason := fmt.Sprintf("%s stays read-only inside %s: it runs outside the sandbox later", rel, what)
		if p.Name == ".git/config" {
			reason += "; git commands that write it (git config, remote add, branch -u/--track, push -u, submodule init) fail with git's message could not write config file (Device or resource busy), and git branch -u/--track still exits 0: run them outside the sandbox"
		}
		out = append(out, hostBind{dest: dest, src: p.Path, kind: "protect",
			reason: reason,
			pos:    "host: " + p.Path + " exists"})
	}
	return out
}

// placeOf returns where the sandbox shows the protected host path p
// (dest) and the writable directory holding it there (rootDest): p's own
// path in the working directory or a read-write bind at its own path,
// the bind's destination plus p's place below its source in a
// read-write bind mounted elsewhere (src ≠ dest).
func (e *emitter) placeOf(p facts.Protected) (dest, rootDest string) {
	if p.BindIndex >= 0 {
		for i := range e.f.Binds {
			if b := &e.f.Binds[i]; b.Index == p.BindIndex && facts.Within(p.Path, b.SrcReal) {
				d := path.Clean(b.Dest)
				return path.Join(d, strings.TrimPrefix(p.Path, b.SrcReal)), d
			}
		}
	}
	return p.Path, p.Root
}

// shadowedByBind reports whether the sandbox path dest, in the writable
// directory shown at rootDest, lies at or under the destination of a
// kept user bind from elsewhere (src ≠ dest) mounted inside that
// directory: there the sandbox shows the bind's source, so the
// protected host path is out of reach and protecting it is moot — and
// its mount point, looked for in the bind's source, may not exist (bwrap
// would fail on the read-only bind, or create the mount point in the
// source on the host).
func (e *emitter) shadowedByBind(dest, rootDest string) bool {
	for _, b := range e.f.Binds {
		if _, dropped := e.drop[b.Index]; dropped || !b.DestAbs {
			continue
		}
		bd := path.Clean(b.Dest)
		if bd == path.Clean(b.SrcReal) {
			continue
		}
		for _, d := range []string{bd, b.DestReal} {
			if d != "" && d != rootDest && facts.Within(d, rootDest) && facts.Within(dest, d) {
				return true
			}
		}
	}
	return false
}

// insideHidden reports whether p lies in a present hidden path (masked
// later, so protecting it is moot).
func (e *emitter) insideHidden(p string) bool {
	for _, h := range e.present() {
		if facts.Within(p, h.Path) {
			return true
		}
	}
	return false
}

// protectedPaths are the paths protections keeps read-only.
func (e *emitter) protectedPaths(bs []hostBind) []string {
	var out []string
	for _, b := range bs {
		if b.kind == "protect" {
			out = append(out, b.dest)
		}
	}
	return out
}

// maskPaths are the paths the masks will cover: present hidden paths,
// /run/user/<uid> and the docker sockets.
func (e *emitter) maskPaths() []string {
	var out []string
	for _, h := range e.present() {
		out = append(out, h.Path)
	}
	if ru := e.f.RunUser; ru.Kind == invocation.KindDir {
		out = append(out, ru.Real)
	}
	for _, d := range e.f.DockerSockets {
		if !invocation.Missing(d.Kind) {
			out = append(out, d.Real)
		}
	}
	return out
}

// pinsFor returns the pins the masks need, given the host binds in
// mount order.
func (e *emitter) pinsFor(bs []hostBind) []hostBind {
	// effective returns the last-mounted, deepest host bind holding p.
	effective := func(p string) *hostBind {
		var best *hostBind
		for i := range bs {
			b := &bs[i]
			if facts.Within(p, b.dest) && (best == nil || len(b.dest) >= len(best.dest)) {
				best = b
			}
		}
		return best
	}
	pinned := map[string]bool{}
	var pins []hostBind
	for _, m := range append(e.maskPaths(), e.protectedPaths(bs)...) {
		for dir := path.Dir(m); dir != "/"; dir = path.Dir(dir) {
			b := effective(dir)
			if b == nil {
				break // the read-only root: nothing there can be renamed
			}
			if !b.rw || b.kind == "protect" || b.dest == dir || pinned[dir] {
				continue
			}
			pinned[dir] = true
			// dir's host directory: itself, or its place below the source
			// of a read-write bind mounted elsewhere.
			src := path.Join(b.src, strings.TrimPrefix(dir, b.dest))
			pins = append(pins, hostBind{dest: dir, src: src, rw: true, kind: "pin",
				reason: "pin: a parent of a hidden or protected path inside a writable directory, bound onto itself so it cannot be renamed",
				pos:    "host: " + src + " holds a hidden or protected path"})
		}
	}
	return pins
}

func (e *emitter) cwdSource() string {
	if e.f.Cwd.Explicit || e.st.req.Cwd != "" {
		return e.settingsPos("cwd")
	}
	return "host: the process's working directory"
}

// present returns the hidden paths the masks mount (facts.Masks that
// stand for a hidden path and lie in no other masked directory), sorted
// by path. Computed once per emitter (the facts do not change).
func (e *emitter) present() []facts.Hidden {
	if e.presentHidden == nil {
		e.presentHidden = []facts.Hidden{} // not nil: present() caches it
		for _, m := range e.f.Masks {
			// A mask covered by another is still made where a read-only
			// exception brings the covering mask's content back
			// (~/.hermes/cache/documents/secret.txt): after it.
			if m.Hidden >= 0 && (m.CoveredBy == "" || e.inReadOnlyException(m.Path) != "") {
				e.presentHidden = append(e.presentHidden, e.f.Hidden[m.Hidden])
			}
		}
	}
	return e.presentHidden
}

// inReadOnlyException returns the read-only exception (facts.Exceptions)
// that p lies at or under, "" when none. A mask there is made after the
// exceptions, so the exception does not cover it; policy rule S6 refuses
// a hidden path inside a writable one.
func (e *emitter) inReadOnlyException(p string) string {
	for _, x := range e.f.Exceptions {
		if !x.Writable && facts.Within(p, x.Path) {
			return x.Path
		}
	}
	return ""
}

// writableRoot returns the writable mount that p lies strictly inside.
func (e *emitter) writableRoot(p string) string {
	best := ""
	for _, w := range e.writable {
		if w != p && facts.Within(p, w) && len(w) > len(best) {
			best = w
		}
	}
	return best
}

// masks makes the masks: with late false those a read-only exception
// does not hold, and the S4 masks; with late true (after the
// exceptions) those it holds.
func (e *emitter) masks(late bool) {
	for _, h := range e.present() {
		if (e.inReadOnlyException(h.Path) != "") != late {
			continue
		}
		row := facts.ProtectionOf(h.Source)
		if row.Role != facts.RoleMask {
			e.fail(fmt.Errorf("hidden path %s of row %s, whose role is %s, not a mask", h.Path, row.Source, row.Role))
			return
		}
		rule, src := row.Rule, e.explainSource(row, h)
		if h.Symlink {
			src += fmt.Sprintf(" (%s is a symlink to %s)", h.Entry, h.Path)
		}
		for _, b := range e.keptBinds {
			if b.Dest == b.SrcReal && facts.Within(h.Path, b.SrcReal) {
				rule = invocation.ReasonMaskedAfterBind
				src = e.settingsPos("binds", b.Index)
			}
		}
		if h.Kind == invocation.KindDir {
			// Read-only at the end, inside the writable set too: a write
			// there could not land on the host, so it fails (EROFS)
			// rather than vanish after the command.
			e.tmpfs(rule, "hide directory "+h.Entry+": an empty tmpfs, read-only (a write there fails)", src, h.Path, maskTmpfsBytes)
			e.roMasks = append(e.roMasks, h.Path)
		} else {
			what := "file"
			if h.Kind == invocation.KindSocket {
				what = "socket" // connect() on the empty file is refused
			}
			e.p.add(rule, "hide "+what+" "+h.Entry+": a zero-length read-only file", src, "--ro-bind-data", e.p.fd(invocation.FDEmpty), h.Path)
		}
		e.hidden = append(e.hidden, h.Path)
	}
	if late {
		return
	}
	for _, src := range []facts.Source{facts.SourceRunUser, facts.SourceDockerSocket} {
		row := facts.ProtectionOf(src)
		for _, m := range e.f.Masks {
			if m.Source != src || m.CoveredBy != "" {
				continue
			}
			if src == facts.SourceRunUser {
				e.tmpfs(row.Rule, "agent and bus sockets (ssh-agent, gpg-agent, D-Bus, keyring): /run/user/<uid> is an empty tmpfs", e.explainSource(row, facts.Hidden{Entry: m.Entry}), m.Path, maskTmpfsBytes)
				e.roMasks = append(e.roMasks, m.Path)
			} else {
				e.p.add(row.Rule, "the docker socket is replaced by an empty file", e.explainSource(row, facts.Hidden{Entry: m.Entry}), "--ro-bind-data", e.p.fd(invocation.FDEmpty), m.Path)
			}
			e.hidden = append(e.hidden, m.Path)
		}
	}
}

// explainSource renders the explain source of a path the registry row
// found (facts.Protection.ExplainSource).
func (e *emitter) explainSource(row facts.Protection, h facts.Hidden) string {
	switch src := row.ExplainSource; {
	case strings.HasPrefix(src, "profile:"):
		return e.profilePos(strings.TrimPrefix(src, "profile:"))
	case src == "settings:hide":
		return e.settingsPos("hide", h.HideIndex) + " matched " + h.Entry
	case strings.HasPrefix(src, "settings:"):
		return e.settingsPos(strings.TrimPrefix(src, "settings:"))
	default:
		return strings.NewReplacer("{entry}", h.Entry, "{var}", h.Var, "{mirror}", h.MirrorOf).Replace(src)
	}
}

func (e *emitter) remounts() {
	for _, m := range e.roMasks {
		src := "host: " + m + " lies outside the writable set"
		if e.writableRoot(m) != "" {
			src = "host: " + m + " is hidden: nothing written there could reach the host"
		}
		e.p.add(invocation.ReasonFilesystem, "the mask stays read-only like the rest of the host", src, "--remount-ro", m)
	}
	e.homeRemounts()
}

// hostBindRank orders the host binds at one depth by kind.
var hostBindRank = map[string]int{"home-link": -1, "home-entry": -1, "bind": 0, "pin": 1, "cwd": 2, "home-tmpfs": 3, "protect": 4}

// orderHostBinds sorts bs, stably, by the depth of their destination
// (parents are mounted first) and then by kind (hostBindRank). The keys
// are worked out once per bind, not once per comparison, and the sort
// moves them rather than the binds: a home layout makes hundreds.
func orderHostBinds(bs []hostBind) []hostBind {
	type key struct{ depth, rank, i int }
	ks := make([]key, len(bs))
	for i, b := range bs {
		ks[i] = key{strings.Count(strings.TrimSuffix(b.dest, "/"), "/"), hostBindRank[b.kind], i}
	}
	slices.SortFunc(ks, func(x, y key) int {
		if x.depth != y.depth {
			return x.depth - y.depth
		}
		if x.rank != y.rank {
			return x.rank - y.rank
		}
		return x.i - y.i
	})
	out := make([]hostBind, len(bs))
	for j, k := range ks {
		out[j] = bs[k.i]
	}
	return out
}
