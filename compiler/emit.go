package compiler

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/runtime"
	"github.com/bwpolicy/bwpolicy/seccomp"
)

// plan accumulates the bwrap arguments in order, each group explained.
type plan struct {
	args     []string
	explain  []runtime.Explain
	fds      []runtime.FD
	requires map[string]bool
}

func (p *plan) add(rule, reason, source string, args ...string) {
	p.args = append(p.args, args...)
	p.explain = append(p.explain, runtime.Explain{Args: args, Rule: rule, Reason: reason, Source: source})
}

// fd reserves the next file descriptor number for kind.
func (p *plan) fd(kind string) string {
	n := 3 + len(p.fds)
	p.fds = append(p.fds, runtime.FD{Num: n, Kind: kind})
	return strconv.Itoa(n)
}

// emitInvocation builds the invocation. Mount order is the security
// property here: broad mounts first (root, /dev, /proc, /tmp, the
// writable set, the user's binds), then the pins, then the masks, then
// the exceptions bound back into masks, then the read-only remounts.
// A later mount covers an earlier one, so nothing after the masks may
// cover a hidden path except the exceptions S6 and S8 name.
func emitInvocation(st *state) {
	e := newEmitter(st)
	e.namespaces()
	e.baseFilesystem()
	e.hostBinds()
	e.masks()
	e.exceptions()
	e.remounts()
	e.process()
	e.seccomp()
	e.landlock()
	st.res.Invocation = e.invocation()
}

type emitter struct {
	st   *state
	f    *facts.Facts
	p    plan
	inv  *runtime.Invocation
	drop map[int]string
	// writable are the host paths the sandbox may write (mount points of
	// read-write binds); masked are the hidden dirs turned into tmpfs.
	writable []string
	masked   []string
	hidden   []string
	// roMasks are masks to remount read-only at the end.
	roMasks []string
	// sc is the compiled seccomp program; ll the Landlock rules.
	sc *runtime.Seccomp
	ll *runtime.Landlock
	// binds are the user binds kept, in order.
	keptBinds []facts.Bind
}

func newEmitter(st *state) *emitter {
	e := &emitter{st: st, f: st.res.Facts, drop: map[int]string{}}
	e.p.requires = map[string]bool{}
	for _, v := range st.violations {
		if v.DropBind >= 0 {
			e.drop[v.DropBind] = v.Rule
		}
	}
	return e
}

func (e *emitter) settingsPos(path ...any) string {
	return e.st.res.Document.Pos(path).String()
}

func (e *emitter) profilePos(field string) string {
	pr := e.st.res.Profile
	if p, ok := pr.Pos[field]; ok {
		return p
	}
	return pr.Source
}

// warn reports a warning about this machine (bwrap, kernel), not about
// the settings.
func (e *emitter) warn(rule, msg string) {
	e.st.res.Diags.Add(diag.Diagnostic{Severity: diag.Warning, Rule: rule, Summary: msg,
		Pos: diag.Pos{File: e.st.res.Document.File}, Host: true})
}

func (e *emitter) namespaces() {
	pr := e.st.res.Profile
	src := e.profilePos("namespaces")
	if pr.Network == "host" {
		e.p.add("S2", "unshare every namespace (user, ipc, pid, uts, cgroup) but keep the host network: profile "+pr.Name+" shares it", e.profilePos("network"), "--unshare-all", "--share-net")
	} else {
		e.p.add("S2", "unshare every namespace, network included: only loopback inside (profile "+pr.Name+")", e.profilePos("network"), "--unshare-all")
	}
	if e.f.Bwrap.Path == "" {
		e.warn("S10", "bwrap was not found: no command can run until it is installed (apt install bubblewrap | dnf install bubblewrap | pacman -S bubblewrap)")
	}
	if e.f.Bwrap.Has("--disable-userns") || e.f.Bwrap.Path == "" {
		e.p.requires["--disable-userns"] = true
		e.p.add("H1", "no nested user namespaces: a command cannot gain CAP_SYS_ADMIN over new mount namespaces", src, "--unshare-user", "--disable-userns")
	} else {
		e.warn("H1", "this bwrap lacks --disable-userns (needs 0.8.0+): commands can create nested user namespaces")
	}
	e.p.add("S2", "the sandbox dies with its parent and runs in a new session (no terminal input injection)", src, "--die-with-parent", "--new-session")
}

func (e *emitter) baseFilesystem() {
	src := e.profilePos("root")
	e.p.add("S3", "the host root, read-only, at the host paths", src, "--ro-bind", "/", "/")
	e.p.add("S3", "a fresh minimal /dev and a private /proc (no host processes visible)", src, "--dev", "/dev", "--proc", "/proc")
	e.p.add("S3", "a fresh /tmp per command", src, "--tmpfs", "/tmp")
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
	bind      facts.Bind
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
	for _, b := range e.f.Binds {
		if _, dropped := e.drop[b.Index]; dropped {
			continue
		}
		hb := hostBind{dest: path.Clean(b.Dest), src: path.Clean(b.SrcReal), rw: !b.Readonly, kind: "bind",
			pos: e.settingsPos("binds", b.Index), bind: b}
		hb.reason = fmt.Sprintf("extra bind binds[%d], read-only", b.Index)
		if hb.rw {
			hb.reason = fmt.Sprintf("extra bind binds[%d], read-write", b.Index)
		}
		bs = append(bs, hb)
	}
	if c := e.f.Cwd; c.Exists && e.st.res.Profile.CwdWritable {
		bs = append(bs, hostBind{dest: c.Real, src: c.Real, rw: true, kind: "cwd",
			reason: "the working directory is the writable set", pos: e.cwdSource()})
	}
	rank := map[string]int{"bind": 0, "pin": 1, "cwd": 2}
	depth := func(p string) int { return strings.Count(strings.TrimSuffix(p, "/"), "/") }
	order := func(bs []hostBind) {
		sort.SliceStable(bs, func(i, j int) bool {
			if di, dj := depth(bs[i].dest), depth(bs[j].dest); di != dj {
				return di < dj
			}
			return rank[bs[i].kind] < rank[bs[j].kind]
		})
	}
	order(bs)
	bs = append(bs, e.pinsFor(bs)...)
	order(bs)
	for _, b := range bs {
		opt := "--ro-bind"
		if b.rw {
			opt = "--bind"
		}
		switch b.kind {
		case "cwd":
			e.p.add("S9", b.reason, b.pos, opt, b.src, b.dest)
			e.writable = append(e.writable, b.dest)
		case "pin":
			e.p.add("S7", b.reason, b.pos, opt, b.src, b.dest)
		default:
			e.p.add("binds", b.reason, b.pos, opt, b.src, b.dest)
			e.keptBinds = append(e.keptBinds, b.bind)
			if b.rw {
				e.writable = append(e.writable, b.dest)
			}
		}
	}
}

// maskPaths are the paths the masks will cover: present hidden paths,
// /run/user/<uid> and the docker sockets.
func (e *emitter) maskPaths() []string {
	var out []string
	for _, h := range e.present() {
		out = append(out, h.Path)
	}
	if ru := e.f.RunUser; ru.Kind == runtime.KindDir {
		out = append(out, ru.Real)
	}
	for _, d := range e.f.DockerSockets {
		if d.Kind != runtime.KindAbsent {
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
	for _, m := range e.maskPaths() {
		for dir := path.Dir(m); dir != "/"; dir = path.Dir(dir) {
			b := effective(dir)
			if b == nil {
				break // the read-only root: nothing there can be renamed
			}
			if !b.rw || b.dest == dir || b.src != b.dest || pinned[dir] {
				continue
			}
			pinned[dir] = true
			pins = append(pins, hostBind{dest: dir, src: dir, rw: true, kind: "pin",
				reason: "pin: a parent of a hidden path inside a writable directory, bound onto itself so it cannot be renamed",
				pos:    "host: " + dir + " holds a hidden path"})
		}
	}
	return pins
}

func (e *emitter) cwdSource() string {
	if e.st.req.Cwd != "" {
		return "command line: --cwd"
	}
	if e.f.Cwd.Explicit {
		return e.settingsPos("cwd")
	}
	return "host: the process's working directory"
}

// present returns the hidden paths that exist, sorted by path, without
// those lying inside another hidden directory (already masked by it).
func (e *emitter) present() []facts.Hidden {
	var hs []facts.Hidden
	seen := map[string]bool{}
	for _, h := range e.f.Hidden {
		if h.Kind == runtime.KindAbsent || seen[h.Path] {
			continue
		}
		seen[h.Path] = true
		hs = append(hs, h)
	}
	sort.Slice(hs, func(i, j int) bool { return hs[i].Path < hs[j].Path })
	var out []facts.Hidden
	for _, h := range hs {
		covered := false
		for _, o := range out {
			if o.Kind == runtime.KindDir && o.Path != h.Path && facts.Within(h.Path, o.Path) {
				covered = true
			}
		}
		if !covered {
			out = append(out, h)
		}
	}
	return out
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

func (e *emitter) masks() {
	pr := e.st.res.Profile
	for _, h := range e.present() {
		why := h.Why
		rule := "S5"
		if why == "H4" {
			rule = "H4"
		}
		var src string
		switch why {
		case "S5":
			src = e.profilePos("hidden_home")
		case "S5-hermes":
			src = "host: the Hermes home"
		default:
			src = e.settingsPos("hide", h.HideIndex) + " matched " + h.Entry
		}
		if h.Symlink {
			src += fmt.Sprintf(" (%s is a symlink to %s)", h.Entry, h.Path)
		}
		for _, b := range e.keptBinds {
			if b.Dest == b.SrcReal && facts.Within(h.Path, b.SrcReal) {
				rule = "R11"
				src = e.settingsPos("binds", b.Index)
			}
		}
		if h.Kind == runtime.KindDir {
			e.p.add(rule, "hide directory "+h.Entry+": an empty tmpfs (writes stay in the sandbox)", src, "--tmpfs", h.Path)
			e.masked = append(e.masked, h.Path)
			if e.writableRoot(h.Path) == "" {
				e.roMasks = append(e.roMasks, h.Path)
			}
		} else {
			e.p.add(rule, "hide file "+h.Entry+": a zero-length read-only file", src, "--ro-bind-data", e.p.fd(runtime.FDEmpty), h.Path)
		}
		e.hidden = append(e.hidden, h.Path)
	}
	if ru := e.f.RunUser; ru.Kind == runtime.KindDir {
		e.p.add("S4", "agent and bus sockets (ssh-agent, gpg-agent, D-Bus, keyring): /run/user/<uid> is an empty tmpfs", e.profilePos("run_user"), "--tmpfs", ru.Real)
		e.hidden = append(e.hidden, ru.Real)
		e.roMasks = append(e.roMasks, ru.Real)
	}
	seen := map[string]bool{}
	for _, d := range e.f.DockerSockets {
		if d.Kind == runtime.KindAbsent || seen[d.Real] {
			continue
		}
		seen[d.Real] = true
		e.p.add("S4", "the docker socket is replaced by an empty file", e.profilePos("docker_socket"), "--ro-bind-data", e.p.fd(runtime.FDEmpty), d.Real)
		e.hidden = append(e.hidden, d.Real)
	}
	_ = pr
}

// insideMask reports whether p lies inside a masked directory.
func (e *emitter) insideMask(p string) bool {
	for _, m := range e.masked {
		if facts.Within(p, m) {
			return true
		}
	}
	return false
}

func (e *emitter) exceptions() {
	f := e.f
	pr := e.st.res.Profile
	cwdWritable := pr.CwdWritable && f.Cwd.Exists
	if f.Scratch.Kind == runtime.KindDir && e.insideMask(f.Scratch.Real) {
		if cwdWritable {
			e.p.add("S6", "the Hermes scratch directory (TMPDIR) stays reachable, writable like the working directory", "host: HERMES_HOME/cache/scratch", "--bind", f.Scratch.Real, f.Scratch.Real)
			e.writable = append(e.writable, f.Scratch.Real)
		} else {
			e.p.add("S6", "the Hermes scratch directory (TMPDIR) stays reachable, read-only like the working directory", "host: HERMES_HOME/cache/scratch", "--ro-bind", f.Scratch.Real, f.Scratch.Real)
		}
	}
	for _, d := range f.StateDirs {
		if e.insideMask(d.Real) {
			e.p.add("S6", "the backend's state directory stays reachable, read-only", "host: HERMES_HOME/sandboxes/bwrap-*", "--ro-bind", d.Real, d.Real)
		}
	}
	if f.HomeMode == "profile" && f.ProfileHome.Kind == runtime.KindDir {
		ph := f.ProfileHome.Real
		if cwdWritable {
			e.p.add("S6", "home_mode profile: HERMES_HOME/home is HOME, readable and writable", e.settingsPos("home_mode"), "--bind", ph, ph)
			e.writable = append(e.writable, ph)
		} else {
			e.p.add("S6", "home_mode profile: HERMES_HOME/home is HOME, read-only like the working directory", e.settingsPos("home_mode"), "--ro-bind", ph, ph)
		}
	}
	seen := map[string]bool{}
	for _, ca := range f.CABundles {
		if ca.Kind == runtime.KindAbsent || seen[ca.Real] || !e.isHidden(ca.Real) {
			continue
		}
		seen[ca.Real] = true
		e.p.add("S8", "CA bundle named by "+ca.Var+" sits in a hidden path: bound back read-only so TLS keeps working", "host: $"+ca.Var, "--ro-bind", ca.Real, ca.Real)
	}
}

func (e *emitter) isHidden(p string) bool {
	for _, h := range e.hidden {
		if facts.Within(p, h) {
			return true
		}
	}
	return false
}

func (e *emitter) remounts() {
	for _, m := range e.roMasks {
		e.p.add("S3", "the mask stays read-only like the rest of the host", "host: "+m+" lies outside the writable set", "--remount-ro", m)
	}
}

func (e *emitter) process() {
	f := e.f
	e.p.add("S9", "commands start in the working directory", e.cwdSource(), "--chdir", f.Cwd.RunDir)
	if e.limited() {
		e.p.add("S1", "bwrap reports the sandbox's first process and waits until the runtime has set the limits on it (RLIMIT_NPROC inside its user namespace), before anything runs", e.profilePos("defaults.max_procs"),
			"--info-fd", e.p.fd(runtime.FDInfo), "--block-fd", e.p.fd(runtime.FDBlock))
	}
	e.p.add("runtime", "bwrap reports the command's exit status, telling a set-up failure (125) from the command's own status", "runtime", "--json-status-fd", e.p.fd(runtime.FDStatus))
}

// seccomp compiles the syscall deny-list (H2) for the native
// architecture; the runtime hands it to bwrap on its own fd.
func (e *emitter) seccomp() {
	s := e.st.res.Settings
	var relax []string
	if s.Seccomp != nil {
		relax = s.Seccomp.Allow
	}
	if e.f.Arch == "" {
		e.warn("H2", "no seccomp filter: this architecture is not supported")
		return
	}
	prog, err := seccomp.Build(e.f.Arch, relax)
	if err != nil {
		e.st.res.Diags.Add(diag.Diagnostic{Severity: diag.Error, Rule: "H2", Path: "seccomp.allow",
			Pos: e.st.res.Document.Pos([]any{"seccomp", "allow"}), Summary: err.Error()})
		return
	}
	for _, r := range relax {
		e.st.res.Diags.Add(diag.Diagnostic{Severity: diag.Warning, Rule: "H2", Path: "seccomp.allow",
			Pos:     e.st.res.Document.Pos([]any{"seccomp", "allow"}),
			Summary: fmt.Sprintf("seccomp group %q is relaxed: those system calls reach the kernel", r)})
	}
	e.p.add("H2", fmt.Sprintf("seccomp deny-list (%d instructions): non-native architectures killed; blocked: %s", prog.Len(), strings.Join(prog.Blocked, ", ")),
		"built in", "--seccomp", e.p.fd(runtime.FDSeccomp))
	e.sc = &runtime.Seccomp{Arch: prog.Arch, Program: prog.Bytes, Blocked: prog.Blocked}
}

// landlock prepares the Landlock rules (H3) the runtime applies before
// bwrap starts: abstract-socket and signal scoping in every profile (ABI
// 6), and the TCP port allowlists of the settings (ABI 4). What this
// kernel cannot enforce is a warning, never a silent pretence.
func (e *emitter) landlock() {
	l := &runtime.Landlock{ScopeAbstractUnix: true, ScopeSignal: true, MinABI: 6}
	if n := e.st.res.Settings.Network; n != nil {
		l.TCPConnect = ports(n.TCPConnect)
		l.TCPBind = ports(n.TCPBind)
	}
	abi := e.f.LandlockABI
	if abi < 6 {
		e.warn("H3", fmt.Sprintf("this kernel's Landlock ABI is %d (< 6): abstract Unix sockets and signals outside the sandbox are not scoped", abi))
	}
	if (l.TCPConnect != nil || l.TCPBind != nil) && abi < 4 {
		e.st.res.Diags.Add(diag.Diagnostic{Severity: diag.Warning, Rule: "H3", Path: "network", Host: true,
			Pos:     e.st.res.Document.Pos([]any{"network"}),
			Summary: fmt.Sprintf("this kernel's Landlock ABI is %d (< 4): the TCP port allowlist is NOT enforced", abi)})
	}
	e.ll = l
}

// ports returns the sorted, unique ports; nil stays nil (unrestricted),
// an empty list stays empty (nothing allowed).
func ports(in []int) []uint16 {
	if in == nil {
		return nil
	}
	seen := map[int]bool{}
	out := []uint16{}
	for _, p := range in {
		if !seen[p] {
			seen[p] = true
			out = append(out, uint16(p))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// limited reports whether any resource limit is set.
func (e *emitter) limited() bool {
	d := e.st.res.Profile.Defaults
	return d.MemoryMB > 0 || d.CPUSeconds > 0 || e.nproc() > 0
}

func (e *emitter) nproc() uint64 {
	mp := e.st.res.Profile.Defaults.MaxProcs
	if mp <= 0 || !e.f.NProcUserns || e.f.UID == 0 {
		return 0 // not enforceable: policy/limits.rego says why (S1)
	}
	return clamp(uint64(mp)+2, e.f.HardNProc)
}

func clamp(v, hard uint64) uint64 {
	if v > hard {
		return hard
	}
	return v
}

func (e *emitter) invocation() *runtime.Invocation {
	f := e.f
	pr := e.st.res.Profile
	inv := &runtime.Invocation{
		Format:   runtime.Format,
		Profile:  pr.Name,
		Bwrap:    runtime.Bwrap{Path: f.Bwrap.Path, Requires: sortedKeys(e.p.requires), Args: e.p.args},
		FDs:      e.p.fds,
		Chdir:    f.Cwd.RunDir,
		Explain:  e.p.explain,
		Seccomp:  e.sc,
		Landlock: e.ll,
	}
	if mb := pr.Defaults.MemoryMB; mb > 0 {
		inv.Rlimits.AsBytes = clamp(uint64(mb)<<20, f.HardAS)
	}
	if cpu := pr.Defaults.CPUSeconds; cpu > 0 {
		inv.Rlimits.CPUSeconds = clamp(uint64(cpu), f.HardCPU)
	}
	inv.Rlimits.NProc = e.nproc()
	inv.Env = e.env()
	inv.Writable = sortedUnique(e.writable)
	inv.Hidden = sortedUnique(e.hidden)
	inv.Preconditions = preconditions(f)
	for _, d := range e.st.res.Diags.Warnings() {
		inv.Warnings = append(inv.Warnings, runtime.Warning{Rule: d.Rule, Message: d.Summary, Source: d.Pos.String()})
	}
	if inv.Warnings == nil {
		inv.Warnings = []runtime.Warning{}
	}
	return inv
}

func (e *emitter) env() runtime.Env {
	pr := e.st.res.Profile
	f := e.f
	env := runtime.Env{Set: map[string]string{}}
	for k, v := range pr.UnsetEnv {
		if v {
			env.Unset = append(env.Unset, k)
		}
	}
	sort.Strings(env.Unset)
	env.UnsetPatterns, env.Allow = envPolicy(e.st.res.Settings)
	if f.Scratch.Kind == runtime.KindDir {
		env.Set["TMPDIR"] = f.Scratch.Real
	} else {
		env.Set["TMPDIR"] = "/tmp"
	}
	if f.HomeMode == "profile" && f.ProfileHome.Kind == runtime.KindDir {
		env.Set["HOME"] = f.ProfileHome.Real
	}
	return env
}

// preconditions records every path the facts stage looked at, so the
// runtime can refuse an invocation compiled under other host state.
func preconditions(f *facts.Facts) []runtime.Precondition {
	// The first reason recorded for a path wins: hidden paths first.
	why := map[string]string{}
	note := func(p, w string) {
		if _, ok := why[p]; !ok {
			why[p] = w
		}
	}
	for _, h := range f.Hidden {
		note(h.Entry, h.Why)
		note(h.Path, h.Why)
	}
	for _, d := range f.DockerSockets {
		note(d.Path, "S4")
		note(d.Real, "S4")
	}
	note(f.RunUser.Path, "S4")
	for _, ca := range f.CABundles {
		note(ca.Path.Path, "S8")
	}
	note(f.Scratch.Path, "S6")
	note(f.ProfileHome.Path, "S6")
	note(f.Cwd.Real, "S9")
	for _, b := range f.Binds {
		note(path.Clean(b.Src), fmt.Sprintf("binds[%d]", b.Index))
		note(path.Clean(b.Dest), fmt.Sprintf("binds[%d]", b.Index))
	}
	paths := make([]string, 0, len(f.Observed))
	for p := range f.Observed {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	out := make([]runtime.Precondition, 0, len(paths))
	for _, p := range paths {
		st := f.Observed[p]
		w := why[p]
		if w == "" {
			w = "path component"
		}
		pc := runtime.Precondition{Path: p, Kind: st.Kind, Target: st.Target, Why: w}
		if wd := f.Walked[p]; wd != nil {
			pc.MTime = st.MTime
			pc.Match = append([]string(nil), wd.Match...)
			sort.Strings(pc.Match)
			pc.NewDirs = wd.NewDirs
			pc.Why = "H4 (listed by a hide glob)"
		}
		out = append(out, pc)
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortedUnique(in []string) []string {
	m := map[string]bool{}
	for _, s := range in {
		m[s] = true
	}
	return sortedKeys(m)
}

// parsePos parses "file:line[:col]".
func parsePos(s string) diag.Pos {
	parts := strings.Split(s, ":")
	p := diag.Pos{File: s}
	if len(parts) >= 2 {
		if n, err := strconv.Atoi(parts[1]); err == nil {
			p = diag.Pos{File: parts[0], Line: n}
			if len(parts) >= 3 {
				p.Col, _ = strconv.Atoi(parts[2])
			}
		}
	}
	return p
}
