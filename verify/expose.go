package verify

import "path"

// InvExposeRoots: each directory `bwrun --expose` may show a file from
// (expose.roots) is itself out of sight — served by a mask or a fresh
// tmpfs of the sandbox, not by a bind of host content — so only the one
// file bwrun binds for a run is ever visible, never the directory.
const InvExposeRoots = "expose-roots"

func (c *checker) exposeRoots() {
	x := c.inv.Expose
	if x == nil {
		return
	}
	for _, r := range x.Roots {
		if !path.IsAbs(r) || path.Clean(r) != r || r == "/" {
			c.fail(InvExposeRoots, r, "an expose root must be an absolute, clean directory other than /")
			continue
		}
		m, _ := c.t.Lookup(r)
		if m == nil || m.Kind != Tmpfs && !(m.Kind == Data && c.masks[m.Dest]) {
			c.fail(InvExposeRoots, r, "the expose root is visible in the sandbox: it shows %s, not a mask or the sandbox's own tmpfs", c.served(m))
		}
	}
}
