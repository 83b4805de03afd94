package runtime

import (
	"syscall"

	"github.com/bwpolicy/bwpolicy/runtime/cgroup"
)

// detectCgroup and cgroupFor are cgroup.Detect and
// cgroup.Support.ForInvocation; the real-hierarchy test replaces them
// (this host's cgroup v2 has no memory controller to write memory.max to).
var (
	detectCgroup = cgroup.Detect
	cgroupFor    = cgroup.Support.ForInvocation
)

// joinCgroup gives the sandbox a memory cgroup of its own when the
// invocation sets memory.max and the host delegates a cgroup v2 memory
// controller: bwrap is then cloned into it (CLONE_INTO_CGROUP), so
// bwrap and every process of the sandbox are charged to it before the
// command runs. Where none is delegated the run goes on with the
// per-process and per-tmpfs bounds only, silently: a note on every
// command would drown the command's own output (an agent reads it), and
// `bwpolicy doctor` and --explain say which bound applies on this host.
// Where one is delegated but the cgroup cannot be made, the run is
// refused.
func (r *runner) joinCgroup(sys *syscall.SysProcAttr) error {
	if r.inv.Rlimits.MemoryMax == 0 {
		return nil
	}
	s := <-r.cgroupFound
	if !s.Available {
		return nil
	}
	cg, err := cgroupFor(s, r.inv)
	if err != nil {
		return err
	}
	r.cgroup = cg
	sys.UseCgroupFD, sys.CgroupFD = true, cg.FD()
	return nil
}

// findCgroup starts cgroup.Detect (tens of microseconds of /proc reads)
// while the rest of the run is prepared; joinCgroup takes its answer.
func (r *runner) findCgroup() {
	if r.inv.Rlimits.MemoryMax == 0 {
		return
	}
	c := make(chan cgroup.Support, 1)
	r.cgroupFound = c
	go func() { c <- detectCgroup() }()
}

// leaveCgroup removes the sandbox's cgroup once its pid namespace is
// gone (killing what is left in it first).
func (r *runner) leaveCgroup() {
	if r.cgroup == nil {
		return
	}
	if !containKill {
		// The S11 control build: leave what runs alone (Close would kill
		// it through cgroup.kill).
		r.cgroup.Abandon()
		r.cgroup = nil
		return
	}
	if err := r.cgroup.Close(); err != nil {
		r.warn(err.Error())
	}
	r.cgroup = nil
}
