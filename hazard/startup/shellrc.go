package startup

import (
	"path/filepath"
	"strings"
)

// shells are the POSIX-family shells whose `-c` script the runtime can
// prefix with an unset (S4): the same `unset` syntax and the same option
// grammar (single-letter flags, -o/+o NAME, -O/+O NAME, --long options).
var shells = map[string]bool{
	"sh": true, "bash": true, "dash": true, "ash": true, "zsh": true, "ksh": true,
	"ksh93": true, "mksh": true, "lksh": true, "oksh": true, "pdksh": true, "yash": true, "posh": true,
}

// shellLongWithArg are the long options (bash, zsh) that take the next
// argument as their value.
var shellLongWithArg = map[string]bool{"--rcfile": true, "--init-file": true, "--emulate": true}

// UnsetAfterRC returns argv with names removed again after the shell's rc
// files run (S4): when argv is `SHELL [OPTION...] -c SCRIPT [ARG...]` for
// a POSIX-family shell (by the base name of argv[0]; `busybox sh` too),
// SCRIPT becomes `\command unset NAMES || exit 125; GUARD; SCRIPT` (zsh:
// `\builtin unset`; GUARD is rcGuard's check that the names are gone). A login or
// interactive shell (-l, -i) reads /etc/profile, ~/.profile, ~/.bashrc,
// ~/.zshenv … before the -c script, and those files may export
// SSH_AUTH_SOCK or DBUS_SESSION_BUS_ADDRESS again; the prefix runs after
// all of them, on the script's first line (line numbers in the shell's
// messages stay right). The backslash keeps an alias from replacing the
// prefix and `command`/`builtin` a function named unset; `command` also
// keeps a POSIX shell from exiting with its own status when unset fails.
// A variable an rc file made read-only cannot be removed, and then the
// script does not run (exit 125, after the shell's own message).
//
// Any other command is returned unchanged: it reads no rc files, and the
// names were already removed from its environment (BuildEnv). ok reports
// whether argv was rewritten. names must be shell identifiers (Validate
// checks the invocation's); argv itself is never modified.
func UnsetAfterRC(argv, names []string) (out []string, ok bool) {
	if len(names) == 0 || len(argv) < 3 {
		return argv, false
	}
	first := 1
	base := filepath.Base(argv[0])
	if base == "busybox" {
		if argv[1] != "sh" && argv[1] != "ash" {
			return argv, false
		}
		first = 2
	} else if !shells[base] {
		return argv, false
	}
	script := shellScriptIndex(argv, first)
	if script < 0 {
		return argv, false
	}
	unset := `\command unset `
	if base == "zsh" {
		unset = `\builtin unset ` // zsh's `command` runs an external command
	}
	out = append([]string(nil), argv...)
	out[script] = unset + strings.Join(names, " ") + " || exit 125; " + rcGuard(names) + argv[script]
	return out, true
}

// rcGuard is the check after the unset: an rc file may have defined a
// function named command, builtin or unset, or disabled the builtin
// (bash `enable -n`, zsh `disable`) with an `unset` on PATH, so that the
// unset "succeeds" and removes nothing. A parameter expansion cannot be
// redefined: when any name is still set the script exits 125, and, if
// an rc file redefined exit too, the `${__bwrun_S4?…}` expansion error
// ends the non-interactive shell with its own status (bash 127, zsh 1)
// before the script runs.
func rcGuard(names []string) string {
	var b strings.Builder
	b.WriteString("case ")
	for _, n := range names {
		b.WriteString("${" + n + "+x}")
	}
	b.WriteString(` in ?*) exit 125; : "${__bwrun_S4?a shell rc file kept a variable bwrun removes (S4): not running the command}";; esac; `)
	return b.String()
}

// shellScriptIndex returns the index of the -c script in argv (options
// from argv[first] on), or -1 when there is no -c.
func shellScriptIndex(argv []string, first int) int {
	sawC := false
	i := first
	for i < len(argv) {
		a := argv[i]
		if a == "--" || a == "-" {
			i++
			break
		}
		if strings.HasPrefix(a, "--") {
			if shellLongWithArg[a] {
				i++
			}
			i++
			continue
		}
		if len(a) < 2 || (a[0] != '-' && a[0] != '+') {
			break
		}
		i++
		for _, c := range a[1:] {
			switch c {
			case 'c':
				sawC = sawC || a[0] == '-'
			case 'o', 'O':
				i++ // the option's name
			}
		}
	}
	if !sawC || i >= len(argv) {
		return -1
	}
	return i
}
