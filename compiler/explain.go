package compiler

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// WriteExplain writes the explained plan: what the sandbox is, each group
// of bwrap arguments with the property or rule that put it there, a
// one-line reason and where that comes from; then the limits, the
// environment, the warnings and what the plan depends on. It is written
// for a person deciding whether to trust this sandbox.
func WriteExplain(w io.Writer, res *Result) {
	inv := res.Invocation
	p := res.Profile
	fmt.Fprintf(w, "bwpolicy plan — profile %s (%s)\n", p.Name, p.Description)
	fmt.Fprintf(w, "  settings:  %s\n", res.Document.File)
	fmt.Fprintf(w, "  bwrap:     %s\n", orNone(inv.Bwrap.Path, "not found — nothing can run (S10): apt install bubblewrap | dnf install bubblewrap | pacman -S bubblewrap"))
	fmt.Fprintf(w, "  starts in: %s\n", inv.Chdir)
	fmt.Fprintf(w, "  writable:  %s\n", orNone(strings.Join(inv.Writable, ", "), "nothing"))
	fmt.Fprintf(w, "  hidden:    %s\n", orNone(strings.Join(inv.Hidden, ", "), "nothing present to hide"))
	fmt.Fprintln(w)
	fmt.Fprintln(w, "bwrap arguments, in order (a later mount covers an earlier one):")
	for i, e := range inv.Explain {
		fmt.Fprintf(w, "%3d. [%s] %s\n", i+1, e.Rule, strings.Join(optionLines(e.Args), "\n            "))
		fmt.Fprintf(w, "       why:  %s\n", e.Reason)
		fmt.Fprintf(w, "       from: %s\n", e.Source)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "limits (set before bwrap starts; RLIMIT_NPROC inside the sandbox's user namespace):")
	fmt.Fprintf(w, "  RLIMIT_AS    %s\n", limitText(inv.Rlimits.AsBytes, func(v uint64) string { return fmt.Sprintf("%d MiB", v>>20) }))
	fmt.Fprintf(w, "  RLIMIT_CPU   %s\n", limitText(inv.Rlimits.CPUSeconds, func(v uint64) string { return fmt.Sprintf("%d s", v) }))
	fmt.Fprintf(w, "  RLIMIT_NPROC %s\n", limitText(inv.Rlimits.NProc, func(v uint64) string { return fmt.Sprintf("%d (max_procs + 2)", v) }))
	fmt.Fprintf(w, "  RLIMIT_NOFILE %s\n", limitText(inv.Rlimits.NoFile, func(v uint64) string {
		return fmt.Sprintf("%d per process (the host's file table shared out among max_procs + 2)", v)
	}))
	tmp := "/tmp and /dev/shm unbounded (see the warnings)"
	if v := inv.Rlimits.TmpBytes; v > 0 {
		tmp = fmt.Sprintf("/tmp and /dev/shm at most %s each (tmp_mb), masks %s; data only, not inodes", sizeText(v), sizeText(maskTmpfsBytes))
	}
	fmt.Fprintf(w, "  tmpfs        %s\n", tmp)
	fmt.Fprintf(w, "  memory.max   %s\n", limitText(inv.Rlimits.MemoryMax, func(v uint64) string {
		return fmt.Sprintf("%s for the whole sandbox (%d × memory_mb), in a cgroup of its own where the host delegates a cgroup v2 memory controller (bwpolicy doctor says whether it does)", sizeText(v), cgroupMemoryFactor)
	}))
	if l := inv.Landlock; l != nil {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Landlock (H3; applied by the runtime before bwrap starts; this kernel: ABI "+fmt.Sprint(res.Facts.LandlockABI)+"):")
		fmt.Fprintf(w, "  scoped: abstract Unix sockets %v, signals %v (ABI 6)\n", yesNo(l.ScopeAbstractUnix), yesNo(l.ScopeSignal))
		fmt.Fprintf(w, "  TCP connect: %s\n", portText(l.TCPConnect))
		fmt.Fprintf(w, "  TCP bind:    %s\n", portText(l.TCPBind))
		if p.Network == "host" {
			fmt.Fprintf(w, "  sockets:     %s\n", socketText(inv.Seccomp))
		}
	}
	writeGitRepos(w, res.Facts)
	writeHomeLayout(w, res.Facts)
	writeSecretFiles(w, res.Facts)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "environment:")
	fmt.Fprintf(w, "  removed: %s\n", orNone(strings.Join(inv.Env.Unset, " "), "nothing"))
	if len(inv.Env.UnsetAfterRC) > 0 {
		fmt.Fprintf(w, "  removed again after a shell's rc files (S4; `sh|bash|zsh… -c`): %s\n", strings.Join(inv.Env.UnsetAfterRC, " "))
	}
	fmt.Fprintln(w, "  removed when the name looks like a secret (H5, any case): *_TOKEN, *_SECRET, *_PASSWORD, *_PASS*, *_KEY, *_PAT, *_PWD, *_DSN, *_WEBHOOK_URL, database URLs, TF_VAR_* of these, … (secrets.SecretNameRules)")
	fmt.Fprintln(w, "  removed when the value looks like a credential (H5), whatever the name: a URL with a password, password=…, a header, a private key, a JWT, a known token format, a password on a command line (-u user:pw, mysql -pPW, --token=…) (secrets.Rules)")
	if len(inv.Env.UnsetPatterns) > 0 {
		fmt.Fprintf(w, "  removed when the name matches (env.strip): %s\n", strings.Join(inv.Env.UnsetPatterns, " "))
	}
	fmt.Fprintf(w, "  kept although matching (env.allow): %s\n", orNone(strings.Join(inv.Env.Allow, " "), "none"))
	fmt.Fprintf(w, "  removed from this environment: %s\n", orNone(strings.Join(strippedNames(inv.Env, res.Facts.EnvNames, res.Facts.EnvValueKinds), " "), "nothing"))
	for _, k := range sortedMapKeys(inv.Env.Set) {
		fmt.Fprintf(w, "  set:     %s=%s\n", k, inv.Env.Set[k])
	}
	if len(inv.Warnings) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "warnings:")
		for _, wr := range inv.Warnings {
			fmt.Fprintf(w, "  [%s] %s", wr.Rule, wr.Message)
			if wr.Source != "" {
				fmt.Fprintf(w, " (%s)", wr.Source)
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "depends on the host staying as it was at the paths the invocation lists as its preconditions: what is hidden, protected or bound back above, the directories on their way, the files the host runs later (H9) and the denied paths watched although absent (bwrun checks them before every command; recompile when one changes).")
	fmt.Fprintln(w, "not isolated: file tools outside the sandbox, the rest of the readable host, Unix sockets outside /run/user and /tmp that no credential variable names, background processes (they die with the command).")
}

func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

func limitText(v uint64, f func(uint64) string) string {
	if v == 0 {
		return "not set"
	}
	return f(v)
}

// optionLines renders a group's arguments, one line per mount when the
// group mounts several paths of one kind (a home layout's entries), else
// on one line.
func optionLines(args []string) []string {
	var lines []string
	for i := 0; i < len(args); {
		n, ok := invocation.BwrapArity(args[i])
		if !ok || i+n >= len(args) || !strings.HasSuffix(args[i], "bind") {
			return []string{strings.Join(quoteAll(args), " ")}
		}
		lines = append(lines, strings.Join(quoteAll(args[i:i+n+1]), " "))
		i += n + 1
	}
	if len(lines) < 3 {
		return []string{strings.Join(quoteAll(args), " ")}
	}
	return lines
}

func quoteAll(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$") {
			out[i] = fmt.Sprintf("%q", a)
		} else {
			out[i] = a
		}
	}
	return out
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// socketText says what the seccomp program lets the network profile's
// sockets do beyond Landlock's TCP rights.
func socketText(sc *invocation.Seccomp) string {
	if sc == nil {
		return "no seccomp filter: every socket type"
	}
	var out []string
	if slices.Contains(sc.Blocked, "tcp-only") {
		out = append(out, "only plain TCP (no MPTCP, SCTP, SMC, raw) and datagram sockets on AF_INET/AF_INET6, only AF_UNIX and AF_NETLINK besides, no MSG_FASTOPEN (seccomp, with a TCP allowlist)")
	} else {
		out = append(out, "every socket type (no TCP allowlist: MPTCP, SCTP and the other families are not restricted)")
	}
	if slices.Contains(sc.Blocked, "udp") {
		out = append(out, "no UDP or ICMP sockets (network.udp: false; DNS needs TCP)")
	} else {
		out = append(out, "UDP and ICMP ping sockets allowed to any port (Landlock does not cover them)")
	}
	return strings.Join(out, "; ")
}

func portText(ps []uint16) string {
	switch {
	case ps == nil:
		return "any port (no allowlist)"
	case len(ps) == 0:
		return "no port allowed (ABI 4)"
	}
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = fmt.Sprint(p)
	}
	return "only " + strings.Join(out, ", ") + " (ABI 4)"
}
