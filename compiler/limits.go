package compiler

// This file holds what the sandbox gets besides mounts: the seccomp
// program, the Landlock rules, the resource limits and the environment.

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/seccomp"
)

// seccomp compiles the syscall deny-list (H2) for the native
// architecture; the runtime hands it to bwrap on its own fd.
func (e *emitter) seccomp() {
	s := e.st.res.Settings
	var relax []string
	if s.Seccomp != nil {
		relax = s.Seccomp.Allow
	}
	if e.f.Arch == "" {
		return // warned by the policy stage (policy/host.rego)
	}
	var net seccomp.Network
	if n := s.Network; n != nil {
		net.TCPOnly = n.TCPConnect != nil || n.TCPBind != nil
		net.NoUDP = n.UDP != nil && !*n.UDP
	}
	// The group names were checked by the policy stage
	// (policy/host.rego); an error here is internal.
	build := seccomp.BuildNetwork
	if l := e.st.req.Lint; l != nil {
		build = l.program
	}
	prog, err := build(e.f.Arch, relax, net)
	if err != nil {
		e.err = err
		return
	}
	e.p.add(invocation.ReasonSeccomp, fmt.Sprintf("seccomp deny-list (%d instructions): non-native architectures killed; blocked: %s", prog.Len(), strings.Join(prog.Blocked, ", ")),
		"built in", "--seccomp", e.p.fd(invocation.FDSeccomp))
	e.sc = &invocation.Seccomp{Arch: prog.Arch, Program: prog.Bytes, Blocked: prog.Blocked}
}

// landlock prepares the Landlock rules (H3) the runtime applies before
// bwrap starts: abstract-socket and signal scoping in every profile (ABI
// 6), and the TCP port allowlists of the settings (ABI 4). What this
// kernel cannot enforce is a warning of the policy stage, never a silent
// pretence.
func (e *emitter) landlock() {
	l := &invocation.Landlock{ScopeAbstractUnix: true, ScopeSignal: true, MinABI: 6}
	if n := e.st.res.Settings.Network; n != nil {
		l.TCPConnect = ports(n.TCPConnect)
		l.TCPBind = ports(n.TCPBind)
	}
	e.ll = l // what this kernel's ABI cannot enforce: policy/host.rego
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

// Bounds of RLIMIT_NOFILE (nofile).
const (
	minNoFile     = 1024
	maxNoFile     = 65536
	defaultNoFile = 4096
	// noFileProcs stands for max_procs when it is not set.
	noFileProcs = 1024
)

// nofile is RLIMIT_NOFILE for every process of the sandbox: the host's
// file table (fs.file-max) shared out so that max_procs + 2 processes at
// the limit hold at most a quarter of it, between minNoFile and
// maxNoFile; defaultNoFile when the table's size is unknown. Without it
// the inherited limit (524,288 on systemd hosts) lets a handful of
// processes fill the host's table (ENFILE for every user).
func (e *emitter) nofile() uint64 {
	fm := e.st.req.Host.FileMax
	if fm == 0 {
		return defaultNoFile
	}
	procs := uint64(noFileProcs)
	if mp := e.st.res.Profile.Defaults.MaxProcs; mp > 0 {
		procs = uint64(mp) + 2
	}
	return min(max(fm/(4*procs), minNoFile), maxNoFile)
}

func clamp(v, hard uint64) uint64 {
	if v > hard {
		return hard
	}
	return v
}

func (e *emitter) env() invocation.Env {
	pr := e.st.res.Profile
	f := e.f
	env := invocation.Env{Set: map[string]string{}}
	for k, v := range pr.UnsetEnv {
		if v {
			env.Unset = append(env.Unset, k)
		}
	}
	sort.Strings(env.Unset)
	// S4: removed again after a shell's rc files (which may export them
	// again) have run; the runtime prefixes the -c script with an unset.
	env.UnsetAfterRC = append([]string(nil), env.Unset...)
	env.CredentialPaths = f.CredentialPaths // H7: checked again at run time
	env.Checked = f.EnvChecked              // every variable the facts read: checked again at run time
	env.UnsetPatterns, env.Allow = envPolicy(e.st.res.Settings)
	if sb := f.Sandbox; sb != nil {
		// The private scratch replaces a temporary directory that was
		// unset or named the shared scratch; one set elsewhere stays.
		// Where the scratch is read-only (it follows the working
		// directory), the sandbox's /tmp is the temporary directory.
		for _, v := range facts.TempVars {
			if cur := sb.TempVars[v]; cur != "" && !namesScratch(f, cur, sb.TempVarsReal[v]) {
				continue
			}
			env.Set[v] = "/tmp"
			if writableException(f, facts.SourceSandboxScratch) {
				env.Set[v] = sb.Scratch.Real
			}
		}
	} else {
		// No scratch of its own (facts.computeExceptions): the
		// sandbox's private /tmp.
		env.Set["TMPDIR"] = "/tmp"
	}
	if f.HomeMode == "profile" && f.ProfileHome.Kind == invocation.KindDir {
		env.Set["HOME"] = f.ProfileHome.Real
	}
	return env
}

// namesScratch reports whether a temporary-directory variable set to cur
// (real: cur with its symlinks resolved, "" when not resolved) names the
// shared scratch HERMES_HOME/cache/scratch, by any spelling: the path
// HERMES_HOME gives, its real path, or a path through a symlink that
// resolves to it (issue 30, S28).
func namesScratch(f *facts.Facts, cur, real string) bool {
	c := path.Clean(cur)
	return c == f.Scratch.Path || c == f.Scratch.Real || (real != "" && real == f.Scratch.Real)
}

// writableException reports whether an exception of source src is
// bound back read-write.
func writableException(f *facts.Facts, src facts.Source) bool {
	for _, x := range f.Exceptions {
		if x.Source == src && x.Writable {
			return true
		}
	}
	return false
}
