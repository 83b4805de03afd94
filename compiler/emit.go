package compiler

import (
	"path"
	"sort"
	"strconv"

	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// plan accumulates the bwrap arguments in order, each group explained.
type plan struct {
	args     []string
	explain  []invocation.Explain
	fds      []invocation.FD
	requires map[string]bool
}

func (p *plan) add(rule invocation.Reason, reason, source string, args ...string) {
	p.args = append(p.args, args...)
	p.explain = append(p.explain, invocation.Explain{N: len(args), Args: args, Rule: rule, Reason: reason, Source: source})
}

// fd reserves the next file descriptor number for kind.
func (p *plan) fd(kind string) string {
	n := 3 + len(p.fds)
	p.fds = append(p.fds, invocation.FD{Num: n, Kind: kind})
	return strconv.Itoa(n)
}

// emitInvocation builds the invocation from input the earlier stages
// checked: it reports nothing (the policy stage says what this machine
// or these settings lack), except an internal error, which fails
// closed. Mount order is the security property here: broad mounts
// first (root, /dev, /proc, /tmp, the writable set, the user's binds),
// then the pins, then the masks, then the exceptions bound back into
// masks, then the read-only remounts. A later mount covers an earlier
// one, so nothing after the masks may cover a hidden path except the
// exceptions S6 and S8 name.
func emitInvocation(st *state) {
	e := newEmitter(st)
	e.namespaces()
	e.baseFilesystem()
	e.hostBinds()
	e.masks(false)
	e.exceptions()
	e.masks(true)
	e.remounts()
	e.process()
	e.seccomp()
	e.landlock()
	if e.err != nil {
		st.res.Diags.Add(diag.Diagnostic{Severity: diag.Error, Rule: "internal", Summary: "emit: " + e.err.Error()})
		return
	}
	st.res.Invocation = e.invocation()
}

type emitter struct {
	st   *state
	f    *facts.Facts
	p    plan
	drop map[int]string
	// writable are the host paths the sandbox may write (mount points of
	// read-write binds).
	writable []string
	// expose is what `bwrun --expose` may show (exceptions).
	expose *invocation.Expose
	hidden []string
	// roMasks are masks to remount read-only at the end.
	roMasks []string
	// sc is the compiled seccomp program; ll the Landlock rules.
	sc *invocation.Seccomp
	ll *invocation.Landlock
	// binds are the user binds kept, in order.
	keptBinds []facts.Bind
	// presentHidden caches present().
	presentHidden []facts.Hidden
	// err is an internal error: input the policy stage should have
	// refused (the invocation is not built).
	err error
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
	return e.st.settingsPos(path...).String()
}

func (e *emitter) profilePos(field string) string {
	pr := e.st.res.Profile
	if p, ok := pr.Pos[field]; ok {
		p.Col = 0 // explain sources name file and line
		return p.String()
	}
	return pr.Source
}

func (e *emitter) namespaces() {
	pr := e.st.res.Profile
	src := e.profilePos("namespaces")
	if pr.Network == "host" {
		e.p.add(invocation.ReasonNamespaces, "unshare every namespace (user, ipc, pid, uts, cgroup) but keep the host network: profile "+pr.Name+" shares it", e.profilePos("network"), "--unshare-all", "--share-net")
	} else {
		e.p.add(invocation.ReasonNamespaces, "unshare every namespace, network included: only loopback inside (profile "+pr.Name+")", e.profilePos("network"), "--unshare-all")
	}
	if e.f.Bwrap.Has("--disable-userns") || e.f.Bwrap.Path == "" {
		e.p.requires["--disable-userns"] = true
		e.p.add(invocation.ReasonDisableUserns, "no nested user namespaces: a command cannot gain CAP_SYS_ADMIN over new mount namespaces", src, "--unshare-user", "--disable-userns")
	} else {
		e.p.add(invocation.ReasonDisableUserns, "the user namespace unshared for certain (--unshare-all only tries it)", src, "--unshare-user")
	}
	e.p.add(invocation.ReasonNamespaces, "the sandbox dies with its parent and runs in a new session (no terminal input injection)", src, "--die-with-parent", "--new-session")
}

func (e *emitter) process() {
	f := e.f
	e.p.add(invocation.ReasonWorkingDirectory, "commands start in the working directory", e.cwdSource(), "--chdir", f.Cwd.RunDir)
	// The runtime needs the first process with or without limits: S11
	// kills the sandbox's pid namespace through it when the command ends.
	rule, reason := invocation.ReasonLimitsBeforeBwrap, "bwrap reports the sandbox's first process and waits until the runtime has set the limits on it (RLIMIT_NPROC inside its user namespace), before anything runs"
	if !e.limited() {
		rule, reason = invocation.ReasonOneSandboxPerCommand, "bwrap reports the sandbox's first process and waits until the runtime has checked that it has a pid namespace of its own (no limits are set: memory_mb, cpu_seconds and max_procs are 0), so that nothing of the sandbox outlives the command"
	}
	e.p.add(rule, reason, e.profilePos("defaults.max_procs"), "--info-fd", e.p.fd(invocation.FDInfo), "--block-fd", e.p.fd(invocation.FDBlock))
	e.p.add(invocation.ReasonRuntime, "bwrap reports the command's exit status, telling a set-up failure (125) from the command's own status", "runtime", "--json-status-fd", e.p.fd(invocation.FDStatus))
}

func (e *emitter) invocation() *invocation.Invocation {
	f := e.f
	pr := e.st.res.Profile
	inv := &invocation.Invocation{
		Format:   invocation.Format,
		Profile:  pr.Name,
		Bwrap:    invocation.Bwrap{Path: f.Bwrap.Path, Requires: sortedKeys(e.p.requires), Args: e.p.args, Identity: f.Bwrap.Identity},
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
	inv.Rlimits.NoFile = e.nofile()
	inv.Rlimits.TmpBytes = e.tmpBytes()
	if mb := pr.Defaults.MemoryMB; mb > 0 {
		inv.Rlimits.MemoryMax = cgroupMemoryFactor * uint64(mb) << 20
	}
	inv.Env = e.env()
	inv.DegradedMode = e.st.res.Settings.DegradedMode
	if sb := f.Sandbox; sb != nil && sb.Scratch.Kind == invocation.KindDir {
		inv.Scratch = sb.Scratch.Real
	}
	inv.Expose = e.expose
	inv.Writable = sortedUnique(e.writable)
	inv.Hidden = sortedUnique(e.hidden)
	if l := f.HomeLayout; l.Active() {
		inv.Home = &invocation.HomeLayout{Dir: l.Home, Dirs: l.Dirs, Allowed: []string{}}
		for rel := range l.Allowed {
			inv.Home.Allowed = append(inv.Home.Allowed, path.Join(l.Home, rel))
		}
		inv.Home.Allowed = sortedUnique(inv.Home.Allowed)
	}
	if l := e.st.req.Lint; l != nil {
		inv.Preconditions = l.preconditions(e.st.req.Facts, f)
	} else {
		inv.Preconditions = preconditions(f)
	}
	for _, d := range e.st.res.Diags.Warnings() {
		inv.Warnings = append(inv.Warnings, invocation.Warning{Rule: d.Rule, Message: d.Summary, Source: d.Pos.String()})
	}
	if inv.Warnings == nil {
		inv.Warnings = []invocation.Warning{}
	}
	return inv
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

// fail records the first internal error of the emit stage (reported, and
// nothing written: emitInvocation).
func (e *emitter) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}
