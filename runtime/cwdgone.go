package runtime

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// This file lets a command run when the only thing that changed since
// the compile is that the working directory was deleted (issue 30 §4):
// Hermes' backend then runs in the nearest existing parent, read-only,
// and binds the directory again when it comes back. bwrun does the same
// without a recompile: the invocation on disk is left as it is, so once
// the directory is back its preconditions hold again and the next
// command runs there, writable, with the compiled mounts.
//
// It runs only after CheckPreconditions failed: the ordinary run pays
// nothing for it.

// RecoverGoneCwd is called with the error CheckPreconditions returned
// for inv. When every mismatch is explained by the compiled working
// directory (the S9 precondition, recorded a directory) being absent now
// (the directory itself, what was below it, and the directories above
// it up to its nearest existing parent P), it returns a copy of inv that
// runs in P: every mount, remount and path option at or below the
// deleted subtree is left out (nothing of it exists to show or hide),
// the hidden and writable paths there are dropped from the copy's
// record, its --chdir is P when it was in the subtree, and the copy's
// arguments pass CheckArgs again. note is the one line that says so.
//
// It fails closed: any other mismatch, a home layout directory or the
// private scratch in the deleted subtree, an option it cannot follow, or
// a P the sandbox does not show as the host's own directory (hidden,
// under the private /tmp, replaced by another mount) returns a
// *StaleError (bwrun exits 125; the plugin recompiles), with a line
// saying why when the cause is P.
func RecoverGoneCwd(inv *invocation.Invocation, err error) (*invocation.Invocation, string, error) {
	var se *StaleError
	if !errors.As(err, &se) {
		return nil, "", err
	}
	cwd := ""
	for _, m := range se.Mismatches {
		p := m.Precondition
		if p.Why == invocation.ReasonWorkingDirectory && p.Names == nil && p.Kind == invocation.KindDir && plainAbsent(m) {
			cwd = p.Path
		}
	}
	if cwd == "" || !invocation.IsCleanAbs(cwd) || cwd == "/" {
		return nil, "", err
	}
	gone, parent := cwd, filepath.Dir(cwd)
	for {
		kind, _, kerr := KindOf(parent)
		if kerr != nil {
			return nil, "", err
		}
		if kind == invocation.KindDir {
			break
		}
		if kind != invocation.KindAbsent || parent == "/" {
			return nil, "", err // a file, a link or no access where a directory was: stale
		}
		gone, parent = parent, filepath.Dir(parent)
	}
	for _, m := range se.Mismatches {
		if !plainAbsent(m) || !invocation.Within(m.Precondition.Path, gone) {
			return nil, "", err
		}
	}
	if inv.Scratch != "" && invocation.Within(inv.Scratch, gone) {
		return nil, "", err
	}
	if inv.Home != nil {
		for _, d := range inv.Home.Dirs {
			if invocation.Within(d, gone) {
				return nil, "", err
			}
		}
	}
	refuse := func(why string) (*invocation.Invocation, string, error) {
		ms := append(append([]Mismatch(nil), se.Mismatches...), Mismatch{Note: fmt.Sprintf(
			"%s (S9): the working directory no longer exists, and its nearest existing parent %s cannot be used instead: %s", cwd, parent, why)})
		return nil, "", &StaleError{Mismatches: ms}
	}
	args, ok := withoutSubtree(inv.Bwrap.Args, gone, parent)
	if !ok {
		return refuse("an option of the invocation at that path cannot be left out")
	}
	cp := *inv
	cp.Bwrap.Args = args
	cp.Hidden = outside(inv.Hidden, gone)
	cp.Writable = outside(inv.Writable, gone)
	if invocation.Within(inv.Chdir, gone) {
		cp.Chdir = parent
	}
	for _, h := range cp.Hidden {
		if invocation.Within(cp.Chdir, h) {
			return refuse("the sandbox hides it")
		}
	}
	var layout []string
	if inv.Home != nil {
		layout = inv.Home.Dirs
	}
	if host, why := hostDirAt(args, cp.Chdir, layout); why != "" {
		return refuse(why)
	} else if host != cp.Chdir {
		return refuse("the sandbox shows " + host + " there")
	}
	if aerr := CheckArgs(&cp); aerr != nil {
		return refuse(aerr.Error())
	}
	mode := "read-only"
	for _, w := range cp.Writable {
		if invocation.Within(cp.Chdir, w) {
			mode = "writable"
		}
	}
	note := fmt.Sprintf("the working directory %s no longer exists: the command runs in %s (%s) and sees no %s; once %s is back, the next command runs there again", cwd, cp.Chdir, mode, gone, cwd)
	return &cp, note, nil
}

// plainAbsent reports whether m says only that a recorded path is
// absent now (no error, listing or note of another kind).
func plainAbsent(m Mismatch) bool {
	return m.Kind == invocation.KindAbsent && m.Err == nil && m.NewEntry == "" && m.Note == "" &&
		m.EnvVar == "" && m.Changed == "" && m.Precondition.Path != ""
}

// outside returns the paths of ps that do not lie at or below dir.
func outside(ps []string, dir string) []string {
	var out []string
	for _, p := range ps {
		if !invocation.Within(p, dir) {
			out = append(out, p)
		}
	}
	return out
}

// withoutSubtree returns args without every option that mounts, remounts
// or names a path at or below dir (with the --size and --perms
// modifiers that precede it), a --chdir there made parent. It reports
// false when an option there cannot be left out (an overlay source) or
// the arguments cannot be followed.
func withoutSubtree(args []string, dir, parent string) ([]string, bool) {
	out := make([]string, 0, len(args))
	mods := 0 // the trailing --size/--perms options of out, waiting for their mount
	for i := 0; i < len(args); i++ {
		opt := args[i]
		n, ok := invocation.BwrapArity(opt)
		if !ok || i+n >= len(args) {
			return nil, false
		}
		v := args[i+1 : i+1+n]
		i += n
		if opt == "--size" || opt == "--perms" {
			out = append(append(out, opt), v...)
			mods += 1 + n
			continue
		}
		drop := false
		switch opt {
		case "--chdir":
			if invocation.Within(v[0], dir) {
				v = []string{parent}
			}
		case "--overlay-src", "--overlay":
			for _, p := range v {
				if invocation.Within(p, dir) {
					return nil, false
				}
			}
		case "--bind", "--ro-bind", "--dev-bind", "--bind-try", "--ro-bind-try", "--dev-bind-try":
			drop = invocation.Within(v[0], dir) || invocation.Within(v[1], dir)
		case "--tmpfs", "--dev", "--proc", "--mqueue", "--dir", "--remount-ro", "--tmp-overlay", "--ro-overlay":
			drop = invocation.Within(v[0], dir)
		case "--file", "--bind-data", "--ro-bind-data", "--bind-fd", "--ro-bind-fd", "--symlink", "--chmod":
			drop = invocation.Within(v[n-1], dir)
		}
		if drop {
			out = out[:len(out)-mods]
			mods = 0
			continue
		}
		mods = 0
		out = append(append(out, opt), v...)
	}
	return out, true
}
