package compiler

// This file is the compilation for findings alone: `bwpolicy check` of
// many settings files wants what each file's compile reports about the
// file, not the invocation, and most of what a compile computes is the
// same from one file to the next.

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"

	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/policy"
	"github.com/bwpolicy/bwpolicy/profile"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/seccomp"
)

// Lint makes the compilations that share it compilations for their
// findings (Request.Lint), and remembers what they have in common. A
// Lint compilation reports what the same compilation without Lint
// reports, less the self-check's findings, and has no invocation:
//
//   - a profile with the same limits is resolved once (profile.Set.Resolve
//     is a function of them: a Set never changes), and shared, unchanged;
//   - the rules' decisions are remembered by what makes their input: the
//     settings (by their JSON, which the input is made of), the profile
//     and the facts (each shared and never changed: the profile above,
//     and facts of the Request's facts.Cache, the only ones remembered
//     by). An engine whose decisions may depend on more than the input
//     (organisation rules, evaluated in bounded child processes, among
//     them: policy.Engine.Memoizable) is evaluated every time, and an
//     error is never remembered;
//   - the preconditions the emit stage records are remembered by the
//     facts they are made of (a facts.Cache's), and its seccomp program
//     by the architecture, the groups relaxed and the socket policy (each
//     a function of them alone);
//   - the self-check (verify's invariants over the emitted invocation)
//     does not run: its findings are about the invocation compiled on
//     this machine (diag.Diagnostic.Host), never about the settings, and
//     there is no invocation to hand out.
//
// The emit stage still runs on every file that reaches it: an internal
// error it finds is the compilation's, with or without Lint. Safe for
// concurrent use.
type Lint struct {
	mu        sync.Mutex
	profiles  table[profileKey, *profile.Profile]
	handed    table[*profile.Profile, bool] // the profiles resolve handed out
	decisions table[decisionKey, []policy.Violation]
	pres      table[*facts.Facts, []invocation.Precondition]
	programs  table[programKey, *seccomp.Program]
}

// programKey is what seccomp.BuildNetwork reads: the groups relaxed are
// their names, each quoted.
type programKey struct {
	arch, relax string
	net         seccomp.Network
}

// profileKey is what profile.Set.Resolve reads; the limits are "" when
// not set, else their decimal value.
type profileKey struct {
	set                            *profile.Set
	name                           string
	memoryMB, cpuSeconds, maxProcs string
}

// decisionKey is what the policy input is made of.
type decisionKey struct {
	eng      *policy.Engine
	facts    *facts.Facts
	profile  *profile.Profile
	settings string // the merged settings' JSON
}

// NewLint returns a Lint that remembers nothing yet.
func NewLint() *Lint { return &Lint{} }

// maxLint bounds each generation of Lint's tables (see table).
const maxLint = 256

// table is one of Lint's tables, in two generations: what was used
// since the current one began is in cur, and a lookup that finds an
// entry of old moves it to cur. When cur is full, it becomes old, and
// what old held and nobody used since is let go: a table holds at most
// 2 × maxLint entries, and keeps those its files keep using.
type table[K comparable, V any] struct {
	cur, old map[K]V
}

// recall is t's value for k, under l's lock.
func recall[K comparable, V any](l *Lint, t *table[K, V], k K) (V, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if v, ok := t.cur[k]; ok {
		return v, true
	}
	v, ok := t.old[k]
	if ok {
		t.put(k, v)
	}
	return v, ok
}

// keep stores v under k in t, under l's lock.
func keep[K comparable, V any](l *Lint, t *table[K, V], k K, v V) {
	l.mu.Lock()
	t.put(k, v)
	l.mu.Unlock()
}

func (t *table[K, V]) put(k K, v V) {
	if t.cur == nil || len(t.cur) >= maxLint {
		t.old, t.cur = t.cur, make(map[K]V, maxLint)
	}
	t.cur[k] = v
}

// resolve is set.Resolve(name, memoryMB, cpuSeconds, maxProcs), once per
// distinct argument (an error is not remembered). The profile is shared:
// nothing may change it.
func (l *Lint) resolve(set *profile.Set, name string, memoryMB, cpuSeconds, maxProcs *int64) (*profile.Profile, error) {
	k := profileKey{set: set, name: name, memoryMB: limitKey(memoryMB), cpuSeconds: limitKey(cpuSeconds), maxProcs: limitKey(maxProcs)}
	if p, ok := recall(l, &l.profiles, k); ok {
		return p, nil
	}
	p, err := set.Resolve(name, memoryMB, cpuSeconds, maxProcs)
	if err != nil {
		return nil, err
	}
	keep(l, &l.profiles, k, p)
	keep(l, &l.handed, p, true)
	return p, nil
}

func limitKey(v *int64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatInt(*v, 10)
}

// evaluate is eng.Evaluate(ctx, in), remembered when eng is Memoizable,
// in's profile is one resolve shared and its facts are cache's (each
// never changed, so its pointer names its content, and cache keeps the
// facts alive anyway). The violations are the caller's.
func (l *Lint) evaluate(ctx context.Context, cache *facts.Cache, eng *policy.Engine, in policyInput) ([]policy.Violation, error) {
	if !eng.Memoizable() || !l.shared(in.Profile) || !cache.Holds(in.Facts) {
		return eng.Evaluate(ctx, in)
	}
	s, err := json.Marshal(in.Settings)
	if err != nil {
		return eng.Evaluate(ctx, in)
	}
	k := decisionKey{eng: eng, facts: in.Facts, profile: in.Profile, settings: string(s)}
	if vs, ok := recall(l, &l.decisions, k); ok {
		return policy.CloneViolations(vs), nil
	}
	vs, err := eng.Evaluate(ctx, in)
	if err != nil {
		return nil, err
	}
	keep(l, &l.decisions, k, policy.CloneViolations(vs))
	return vs, nil
}

// shared reports whether p is a profile resolve handed out.
func (l *Lint) shared(p *profile.Profile) bool {
	ok, _ := recall(l, &l.handed, p)
	return ok
}

// preconditions is preconditions(f), once per f when cache holds f. They
// are shared by the invocations of the compilations of l, which nobody
// sees.
func (l *Lint) preconditions(cache *facts.Cache, f *facts.Facts) []invocation.Precondition {
	if !cache.Holds(f) {
		return preconditions(f)
	}
	if pcs, ok := recall(l, &l.pres, f); ok {
		return pcs
	}
	pcs := preconditions(f)
	keep(l, &l.pres, f, pcs)
	return pcs
}

// program is seccomp.BuildNetwork(arch, relax, net), once per distinct
// argument (an error is not remembered). The program is shared: nothing
// may change it.
func (l *Lint) program(arch string, relax []string, net seccomp.Network) (*seccomp.Program, error) {
	var q strings.Builder
	for _, r := range relax {
		q.WriteString(strconv.Quote(r))
	}
	k := programKey{arch: arch, relax: q.String(), net: net}
	if p, ok := recall(l, &l.programs, k); ok {
		return p, nil
	}
	p, err := seccomp.BuildNetwork(arch, relax, net)
	if err != nil {
		return nil, err
	}
	keep(l, &l.programs, k, p)
	return p, nil
}
