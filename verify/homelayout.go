package verify

// This file checks the home layout an invocation declares (H10).

import "strings"

// InvHomeLayout: each directory the home layout declares rebuilt is a
// visible tmpfs of the sandbox's own (no host name can be created there
// on the host), read-only (a write to a name that is not bound back fails
// instead of landing in a tmpfs that vanishes after the command; the
// tool build caches inside ~/.cache are tmpfs mounts of their own), and
// inside them
// nothing shows host content but the home directory's non-dot entries,
// the declared allowed paths and the S6/S8 exceptions: no dot entry is
// visible unless allowed.
const InvHomeLayout = "home-layout"

func (c *checker) homeLayout() {
	h := c.inv.Home
	if h == nil {
		return
	}
	for _, d := range h.Dirs {
		if !within(d, h.Dir) {
			c.fail(InvHomeLayout, d, "a rebuilt directory outside the home directory %s", h.Dir)
			continue
		}
		m := c.t.MountAt(d)
		if m == nil || m.Kind != Tmpfs || !m.Visible() {
			c.fail(InvHomeLayout, d, "declared rebuilt as a tmpfs by the home layout, but it shows %s", c.served(m))
			continue
		}
		if m.Writable {
			c.fail(InvHomeLayout, d, "the home layout's tmpfs is writable: a write to a name that is not bound back would land in it and vanish after the command")
		}
	}
	for _, m := range c.t.Visible() {
		if !m.HostBacked() && m.Kind != Symlink || m.Dest == h.Dir || !within(m.Dest, h.Dir) {
			continue
		}
		if !c.homeShows(m) {
			c.fail(InvHomeLayout, m.Dest, "%s shows host content in the home layout at a path that is neither a non-dot entry of %s nor allowed", c.where(m), h.Dir)
		}
	}
}

// homeShows reports whether mount m may show host content inside the
// home layout.
func (c *checker) homeShows(m *Mount) bool {
	h := c.inv.Home
	for _, a := range h.Allowed {
		if within(m.Dest, a) {
			return true
		}
	}
	top, _, _ := strings.Cut(strings.TrimPrefix(m.Dest, h.Dir+"/"), "/")
	if !strings.HasPrefix(top, ".") {
		return true
	}
	return c.exception(m)
}
