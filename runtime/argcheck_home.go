package runtime

import "github.com/bwpolicy/bwpolicy/runtime/invocation"

// homeLayout checks the home layout the invocation declares (H10): each
// rebuilt directory is served by a tmpfs at exactly that path, with no
// later mount at or above it. What is bound back inside is verify's to
// prove; bwrun only makes sure the layout has not been taken away.
func (c *argCheck) homeLayout() {
	h := c.inv.Home
	if h == nil {
		return
	}
	for _, d := range h.Dirs {
		if !invocation.IsCleanAbs(d) {
			c.fail("home layout directory %q is not absolute and clean", d)
			continue
		}
		m := c.cover(d)
		switch {
		case m == nil:
			c.fail("home layout directory %s is not a tmpfs: nothing is mounted there", d)
		case m.dest != d || c.inv.Bwrap.Args[m.i] != "--tmpfs":
			c.fail("home layout directory %s is not a tmpfs: %s (args[%d]) is the last mount at or above it", d, c.inv.Bwrap.Args[m.i], m.i)
		}
	}
}
