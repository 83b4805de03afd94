package doctor

import "fmt"

// CheckYama is the name of the Yama ptrace_scope check.
const CheckYama = "yama-ptrace"

// SysYamaPtraceScope is the file the Yama check reads.
const SysYamaPtraceScope = "/proc/sys/kernel/yama/ptrace_scope"

// yamaCheck reports Yama's ptrace_scope and what it means for a command
// that takes over the sandbox's pid 1 (bwrap's init runs as the same
// user and is dumpable, so without Yama a command can write its memory
// through /proc/1/mem). Informational: the check never fails, since bwrun
// kills the sandbox's pid namespace on every exit path either way; it says
// what is left open.
func yamaCheck(h Host) Check {
	c := Check{Name: CheckYama, OK: true}
	const open = "a sandboxed command can write the memory of the sandbox's pid 1 (bwrap's init, same user) through /proc/1/mem and take it over: it can make bwrap report an exit status of its choosing and keep processes alive after bwrap exits. bwrun kills the sandbox's whole pid namespace before it returns, so nothing outlives bwrun, and the status channel's own findings (stale, setup-failed, timeout) cannot be forged, though the exit status it passes on can; but if bwrun itself is SIGKILLed, a taken-over sandbox keeps running. To refuse the takeover, enable Yama (CONFIG_SECURITY_YAMA, \"yama\" in the lsm= boot parameter) with `sysctl -w kernel.yama.ptrace_scope=1`"
	v, ok := readInt(h, SysYamaPtraceScope)
	switch {
	case !ok:
		c.Detail = "no Yama (" + SysYamaPtraceScope + " absent): " + open
	case v == 0:
		c.Detail = "kernel.yama.ptrace_scope=0 (classic ptrace permissions): " + open
	case v == 1:
		c.Detail = "kernel.yama.ptrace_scope=1 (a process may only ptrace its descendants): the sandbox's pid 1 is the command's ancestor, so a command cannot take it over through /proc/1/mem"
	case v == 2:
		c.Detail = "kernel.yama.ptrace_scope=2 (ptrace needs CAP_SYS_PTRACE): a command cannot take the sandbox's pid 1 over through /proc/1/mem"
	case v == 3:
		c.Detail = "kernel.yama.ptrace_scope=3 (no ptrace at all): a command cannot take the sandbox's pid 1 over through /proc/1/mem"
	default:
		c.Detail = fmt.Sprintf("kernel.yama.ptrace_scope=%d (unknown value)", v)
	}
	return c
}
