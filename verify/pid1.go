package verify

// InvPid1Memory: the memory of the sandbox's pid 1 (bwrap's init,
// /proc/1/mem and /proc/1/task/1/mem) is covered by a read-only bind of
// /dev/null mounted after the fresh /proc (S11). Without Yama a command
// runs as the init's uid and could otherwise write its code into the
// init through these files and take the sandbox over.
const InvPid1Memory = "pid1-memory"

// pid1Memory checks InvPid1Memory.
func (c *checker) pid1Memory() {
	proc := c.t.MountAt("/proc")
	for _, p := range []string{"/proc/1/mem", "/proc/1/task/1/mem"} {
		m := c.t.MountAt(p)
		if m == nil || m.Kind != ROBind || m.Source != "/dev/null" || m.Writable || !m.Visible() ||
			proc == nil || m.Index < proc.Index {
			got, _ := c.t.Lookup(p)
			c.fail(InvPid1Memory, p, "want --ro-bind /dev/null %s after --proc /proc (a command could write its code into the sandbox's pid 1 through it), the sandbox shows %s", p, c.served(got))
		}
	}
}
