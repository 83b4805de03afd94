package verify

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// View draws the sandbox's file system as a tree of its mount points,
// from "/": each marked read-only, writable, hidden or tmpfs, with the
// rule that put it there (from the invocation's explain groups). Mounts
// that a later mount covers are listed after the tree.
func View(w io.Writer, t *MountTable, inv *invocation.Invocation) error {
	inv = onePerPath(inv)
	c := &checker{inv: inv, t: t, rec: newRecorded(inv), ex: explainArgs(inv), masks: map[string]bool{}, seen: map[string]bool{}}
	c.secrets = c.rec.secrets(inv)
	for _, s := range c.secrets {
		c.masks[s.Host] = true
	}
	vis := t.Visible()
	children := map[*Mount][]*Mount{}
	var roots []*Mount
	for _, m := range vis {
		if p := t.Parent(m); p != nil {
			children[p] = append(children[p], m)
		} else {
			roots = append(roots, m)
		}
	}
	type line struct{ tree, attrs, rule string }
	var lines []line
	var walk func(m *Mount, prefix, branch string)
	walk = func(m *Mount, prefix, branch string) {
		lines = append(lines, line{prefix + branch + m.Dest, "[" + strings.Join(c.attrs(m), ", ") + "]", c.ruleOf(m)})
		kids := children[m]
		sort.Slice(kids, func(i, j int) bool { return kids[i].Dest < kids[j].Dest })
		next := prefix
		switch branch {
		case "├── ":
			next += "│   "
		case "└── ":
			next += "    "
		}
		for i, k := range kids {
			b := "├── "
			if i == len(kids)-1 {
				b = "└── "
			}
			walk(k, next, b)
		}
	}
	for _, r := range roots {
		walk(r, "", "")
	}
	treeW, attrW := 0, 0
	for _, l := range lines {
		treeW = max(treeW, utf8.RuneCountInString(l.tree))
		attrW = max(attrW, len(l.attrs))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "sandbox file system — profile %s, %d mount points (a path not listed shows the mount above it)\n\n", inv.Profile, len(vis))
	if len(roots) == 0 || roots[0].Dest != "/" {
		b.WriteString("(nothing is mounted at /: the root is bwrap's own empty tmpfs)\n")
	}
	for _, l := range lines {
		pad := strings.Repeat(" ", treeW-utf8.RuneCountInString(l.tree))
		fmt.Fprintf(&b, "%s%s  %-*s  %s\n", l.tree, pad, attrW, l.attrs, l.rule)
	}
	var covered []*Mount
	for _, m := range t.Mounts {
		if !m.Visible() {
			covered = append(covered, m)
		}
	}
	if len(covered) > 0 {
		b.WriteString("\ncovered by a later mount (unreachable in the sandbox):\n")
		for _, m := range covered {
			by := "?"
			for _, o := range t.Mounts {
				if o.Index == m.CoveredBy {
					by = c.where(o)
				}
			}
			fmt.Fprintf(&b, "  %s  ← covered by %s\n", c.where(m), by)
		}
	}
	if t.ChdirIndex >= 0 {
		fmt.Fprintf(&b, "\ncommands start in %s\n", t.Chdir)
	}
	b.WriteString("\nread-only, writable: a host directory as the sandbox sees it · tmpfs: the sandbox's own, empty, gone after the command\n")
	b.WriteString("hidden: masks a hidden path (S4, S5, H4) · pin: bound onto itself so it cannot be renamed (S7) · exception: brought back inside a mask (S6, S8)\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// ViewInvocation replays inv's arguments and draws them (see View).
func ViewInvocation(w io.Writer, inv *invocation.Invocation) error {
	t, err := Replay(inv.Bwrap.Args)
	if err != nil {
		return err
	}
	return View(w, t, inv)
}

// attrs are a mount's marks in the tree.
func (c *checker) attrs(m *Mount) []string {
	rw := "read-only"
	if m.Writable {
		rw = "writable"
	}
	var a []string
	switch m.Kind {
	case Bind, ROBind:
		a = append(a, rw)
		if m.Source != m.Dest {
			a = append(a, "from "+m.Source)
		}
		switch {
		case m.Kind == Bind && c.isPin(m):
			a = append(a, "pin")
		case c.exception(m):
			a = append(a, "exception")
		}
	case Tmpfs:
		if c.isMask(m) {
			a = append(a, "hidden")
		}
		a = append(a, "tmpfs", rw)
		if m.Size > 0 {
			a = append(a, sizeText(m.Size))
		}
	case Data:
		if c.isMask(m) {
			a = append(a, "hidden")
		}
		a = append(a, "empty file", rw)
	case Dev:
		a = append(a, "dev", rw)
	case Proc:
		a = append(a, "proc")
	}
	return a
}

// ruleOf names the rule that mounted m (and the one that made it
// read-only afterwards).
func (c *checker) ruleOf(m *Mount) string {
	r := string(c.ex.rule(m.Index))
	if m.RemountRO >= 0 {
		r += ", read-only by " + string(c.ex.rule(m.RemountRO))
	}
	return r
}

// sizeText renders a tmpfs size bound ("at most 256 MiB"); the verifier
// shares no code with the compiler, which has its own.
func sizeText(n uint64) string {
	unit, div := "KiB", uint64(1<<10)
	if n%(1<<20) == 0 {
		unit, div = "MiB", 1<<20
	}
	return fmt.Sprintf("at most %d %s", n/div, unit)
}
