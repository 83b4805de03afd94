package invocation

// This file is Validate: an invocation's internal consistency, as a
// table of named checks (each testable alone: TestValidateChecks).

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// check is one named consistency check of an invocation.
type check struct {
	name string
	run  func(inv *Invocation) error
}

// checks are Validate's checks, in order: the first that fails is the
// error.
var checks = []check{
	{"bwrap", checkBwrap},
	{"fds", checkFDs},
	{"seccomp-program", checkSeccompProgram},
	{"args", checkArgs},
	{"fds-used", checkFDsUsed},
	{"rlimits-fds", checkRlimitsFDs},
	{"preconditions", checkPreconditions},
	{"env", checkEnv},
	{"landlock", checkLandlock},
	{"expose", checkExpose},
	{"explain", validateExplain},
}

// Validate checks an invocation's internal consistency: an absolute bwrap
// path, non-empty arguments made of options bwrap knows (each with its
// values), file descriptors numbered 3 or more, each listed once, each
// used exactly once by an option that fits its kind, known reasons and
// scopes, and nothing the runtime could not supply (checks). Decode
// calls it; callers that build an Invocation in memory should call it
// too.
func Validate(inv *Invocation) error {
	for _, c := range checks {
		if err := c.run(inv); err != nil {
			return err
		}
	}
	return nil
}

// checkBwrap: an absolute bwrap path, arguments, options bwrap knows
// in requires.
func checkBwrap(inv *Invocation) error {
	if inv.Bwrap.Path == "" {
		// What the compiler writes when it found no bwrap (S10): the
		// sandbox is unavailable, and nothing runs without it.
		return errors.New("bwrap.path is empty: it was compiled where no bwrap was found, so no command can run (never unsandboxed); " +
			InstallHint + ", then recompile with `bwpolicy compile`")
	}
	if !filepath.IsAbs(inv.Bwrap.Path) {
		return fmt.Errorf("bwrap.path %q is not absolute", inv.Bwrap.Path)
	}
	if len(inv.Bwrap.Args) == 0 {
		return errors.New("bwrap.args is empty")
	}
	for _, r := range inv.Bwrap.Requires {
		if _, ok := bwrapArity[r]; !ok {
			return fmt.Errorf("bwrap.requires: %q is not a bwrap option", r)
		}
	}
	return nil
}

// fdKinds returns the kind of each listed descriptor and how many of
// each kind there are (checkFDs has checked them).
func fdKinds(inv *Invocation) (map[int]string, map[string]int) {
	kinds := map[int]string{}
	count := map[string]int{}
	for _, fd := range inv.FDs {
		kinds[fd.Num] = fd.Kind
		count[fd.Kind]++
	}
	return kinds, count
}

// checkFDs: descriptors 3..maxFD, each listed once, of a known kind,
// at most one of the info, block and status kinds.
func checkFDs(inv *Invocation) error {
	kinds := map[int]string{}
	count := map[string]int{}
	for i, fd := range inv.FDs {
		if fd.Num < 3 || fd.Num > maxFD {
			return fmt.Errorf("fds[%d]: fd %d out of range (3..%d; 0-2 are the command's stdio)", i, fd.Num, maxFD)
		}
		if _, dup := kinds[fd.Num]; dup {
			return fmt.Errorf("fds[%d]: fd %d listed twice", i, fd.Num)
		}
		switch fd.Kind {
		case FDEmpty, FDSeccomp:
		case FDInfo, FDBlock, FDStatus:
			if count[fd.Kind] > 0 {
				return fmt.Errorf("fds[%d]: more than one %q fd", i, fd.Kind)
			}
		default:
			return fmt.Errorf("fds[%d]: unknown fd kind %q", i, fd.Kind)
		}
		kinds[fd.Num] = fd.Kind
		count[fd.Kind]++
	}
	return nil
}

// checkSeccompProgram: a seccomp descriptor has a program of whole
// sock_filter records.
func checkSeccompProgram(inv *Invocation) error {
	if _, count := fdKinds(inv); count[FDSeccomp] == 0 {
		return nil
	}
	if inv.Seccomp == nil || len(inv.Seccomp.Program) == 0 {
		return errors.New("a seccomp fd is listed but seccomp.program is empty")
	}
	if len(inv.Seccomp.Program)%8 != 0 {
		return fmt.Errorf("seccomp.program is %d bytes, not a whole number of 8-byte sock_filter records", len(inv.Seccomp.Program))
	}
	return nil
}

// fdUses returns, by descriptor, the option of bwrap.args that uses it
// (checkArgs has checked them).
func fdUses(inv *Invocation) map[int]string {
	used := map[int]string{}
	args := inv.Bwrap.Args
	for i := 0; i < len(args); i++ {
		n := bwrapArity[args[i]]
		if _, isFD := fdOptions[args[i]]; isFD && i+1 < len(args) {
			if num, err := strconv.Atoi(args[i+1]); err == nil {
				used[num] = args[i]
			}
		}
		i += n
	}
	return used
}

// checkArgs: every argument an option bwrap knows with its values, none
// refused, no "--", each descriptor option naming a listed descriptor
// of a kind it takes, used once.
func checkArgs(inv *Invocation) error {
	kinds, _ := fdKinds(inv)
	used := map[int]string{}
	args := inv.Bwrap.Args
	for i := 0; i < len(args); i++ {
		opt := args[i]
		if opt == "--" {
			return fmt.Errorf("bwrap.args[%d]: \"--\" (the command goes after the arguments, not in them)", i)
		}
		if why, bad := refusedOptions[opt]; bad {
			return fmt.Errorf("bwrap.args[%d]: %s is refused: %s", i, opt, why)
		}
		n, ok := bwrapArity[opt]
		if !ok {
			if strings.HasPrefix(opt, "-") {
				return fmt.Errorf("bwrap.args[%d]: unknown bwrap option %q", i, opt)
			}
			return fmt.Errorf("bwrap.args[%d]: %q is not a bwrap option (a value without its option?)", i, opt)
		}
		if i+n >= len(args) {
			return fmt.Errorf("bwrap.args[%d]: %s needs %d value(s), the arguments end", i, opt, n)
		}
		if fkinds, isFD := fdOptions[opt]; isFD {
			if err := checkFDArg(i, opt, args[i+1], fkinds, kinds, used); err != nil {
				return err
			}
		}
		i += n
	}
	return nil
}

// checkFDArg checks the descriptor val of option opt at args[i].
func checkFDArg(i int, opt, val string, fkinds []string, kinds map[int]string, used map[int]string) error {
	num, err := strconv.Atoi(val)
	if err != nil {
		return fmt.Errorf("bwrap.args[%d]: %s %q: not a file descriptor number", i, opt, val)
	}
	kind, listed := kinds[num]
	if !listed {
		return fmt.Errorf("bwrap.args[%d]: %s %d: fd %d is not listed in fds", i, opt, num, num)
	}
	if prev, twice := used[num]; twice {
		return fmt.Errorf("bwrap.args[%d]: fd %d is used by both %s and %s (bwrap consumes an fd per use)", i, num, prev, opt)
	}
	fits := false
	for _, k := range fkinds {
		fits = fits || k == kind
	}
	if !fits {
		if len(fkinds) == 0 {
			return fmt.Errorf("bwrap.args[%d]: %s is not supported by the runtime (it has no fd kind to supply)", i, opt)
		}
		return fmt.Errorf("bwrap.args[%d]: %s %d: fd %d is of kind %q, %s needs %q", i, opt, num, num, kind, opt, strings.Join(fkinds, " or "))
	}
	used[num] = opt
	return nil
}

// checkFDsUsed: every listed descriptor is used by an argument.
func checkFDsUsed(inv *Invocation) error {
	used := fdUses(inv)
	for _, fd := range inv.FDs {
		if _, ok := used[fd.Num]; !ok {
			return fmt.Errorf("fd %d (%s) is listed in fds but no bwrap argument uses it", fd.Num, fd.Kind)
		}
	}
	return nil
}

// checkRlimitsFDs: limits need the info and block descriptors.
func checkRlimitsFDs(inv *Invocation) error {
	_, count := fdKinds(inv)
	if (inv.Rlimits.AsBytes != 0 || inv.Rlimits.CPUSeconds != 0 || inv.Rlimits.NProc != 0) &&
		(count[FDInfo] == 0 || count[FDBlock] == 0) {
		return errors.New("rlimits are set but the invocation has no info and block fds: the runtime applies the limits to the sandbox's first process while bwrap waits on --block-fd")
	}
	return nil
}

// checkPreconditions: each precondition absolute, of a known kind (a
// symlink with its target), of a known reason and scope, its names and
// match patterns well formed.
func checkPreconditions(inv *Invocation) error {
	for i, p := range inv.Preconditions {
		if err := checkPrecondition(i, p); err != nil {
			return err
		}
	}
	return nil
}

func checkPrecondition(i int, p Precondition) error {
	if !filepath.IsAbs(p.Path) {
		return fmt.Errorf("preconditions[%d]: path %q is not absolute", i, p.Path)
	}
	if p.Names != nil {
		if err := validateNames(i, p); err != nil {
			return err
		}
	}
	switch p.Kind {
	case KindAbsent, KindFile, KindDir, KindSocket, KindOther, KindDenied:
		if p.Target != "" {
			return fmt.Errorf("preconditions[%d] (%s): a target is only meaningful for kind %q", i, p.Path, KindSymlink)
		}
	case KindSymlink:
		if p.Target == "" {
			return fmt.Errorf("preconditions[%d] (%s): symlink without a target", i, p.Path)
		}
	default:
		return fmt.Errorf("preconditions[%d] (%s): unknown kind %q", i, p.Path, p.Kind)
	}
	if !p.Why.Known() {
		return fmt.Errorf("preconditions[%d] (%s): unknown reason %q (recompile)", i, p.Path, p.Why)
	}
	if !p.Scope.Known() {
		return fmt.Errorf("preconditions[%d] (%s): unknown scope %q (recompile)", i, p.Path, p.Scope)
	}
	if p.Bind != 0 && p.Why != ReasonBinds || p.Bind < 0 {
		return fmt.Errorf("preconditions[%d] (%s): bind %d on a precondition of reason %q", i, p.Path, p.Bind, p.Why)
	}
	for _, pat := range p.Match {
		if _, err := path.Match(pat, ""); err != nil || strings.Contains(pat, "/") {
			return fmt.Errorf("preconditions[%d] (%s): match pattern %q is not a one-name path.Match pattern", i, p.Path, pat)
		}
	}
	return nil
}

// checkEnv: patterns, shell names, variable names and digests well
// formed.
func checkEnv(inv *Invocation) error {
	for _, pat := range inv.Env.UnsetPatterns {
		if _, err := path.Match(pat, ""); err != nil {
			return fmt.Errorf("env.unset_patterns: %q: %v", pat, err)
		}
	}
	for _, name := range inv.Env.UnsetAfterRC {
		if !IsShellName(name) {
			return fmt.Errorf("env.unset_after_rc: %q is not a shell variable name", name)
		}
	}
	for name, d := range inv.Env.Checked {
		if name == "" || strings.ContainsAny(name, "=\x00") {
			return fmt.Errorf("env.checked: invalid variable name %q", name)
		}
		if !validDigest(d) {
			return fmt.Errorf("env.checked: %s: %q is not \"\" or sha256:<64 hex digits>", name, d)
		}
	}
	for name := range inv.Env.Set {
		if name == "" || strings.ContainsAny(name, "=\x00") {
			return fmt.Errorf("env.set: invalid variable name %q", name)
		}
	}
	return nil
}

// checkLandlock: no port 0 in a port list.
func checkLandlock(inv *Invocation) error {
	if inv.Landlock == nil {
		return nil
	}
	for _, p := range append(append([]uint16(nil), inv.Landlock.TCPConnect...), inv.Landlock.TCPBind...) {
		if p == 0 {
			return errors.New("landlock: port 0 in a port list")
		}
	}
	return nil
}

// checkExpose: each expose root absolute, clean, below /.
func checkExpose(inv *Invocation) error {
	if inv.Expose == nil {
		return nil
	}
	for _, r := range inv.Expose.Roots {
		if !IsCleanAbs(r) || r == "/" {
			return fmt.Errorf("expose.roots: %q is not an absolute, clean directory below /", r)
		}
	}
	return nil
}
