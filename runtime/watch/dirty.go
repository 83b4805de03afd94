package watch

// Kind is how a dirty directory is to be scanned again.
type Kind byte

const (
	// Self: the directory's own entries changed; it is listed again.
	Self Kind = 's'
	// Tree: the directory was created, moved in, deleted or moved out:
	// everything below it is walked again (or, gone, forgotten).
	Tree Kind = 't'
)

// Set is a set of dirty directories; Tree wins over Self.
type Set map[string]Kind

// Mark adds dir with kind k.
func (s Set) Mark(dir string, k Kind) {
	if s[dir] != Tree {
		s[dir] = k
	}
}

// merge adds every directory of o.
func (s Set) merge(o Set) {
	for d, k := range o {
		s.Mark(d, k)
	}
}

// generations holds the dirty sets per generation: closed ones after the
// last acknowledged generation, and the open one events go to now.
type generations struct {
	gen    uint64 // the last generation closed
	acked  uint64 // the last generation acknowledged
	closed map[uint64]Set
	open   Set
}

func newGenerations() *generations {
	return &generations{closed: map[uint64]Set{}, open: Set{}}
}

// known reports whether the sets since g are all kept: g is not older
// than the last acknowledgement, nor newer than the last cut.
func (g *generations) known(since uint64) bool {
	return since >= g.acked && since <= g.gen
}

// cut closes the open set as a new generation and returns it with the
// union of the sets after since (since must be known). When nothing
// happened since the last cut and since is that cut, it is the answer
// again (no new generation): the asker's record of it stays as it is,
// so that a command that changed nothing writes nothing (bwrun then
// neither saves its state nor acknowledges).
func (g *generations) cut(since uint64) (uint64, Set) {
	if since == g.gen && len(g.open) == 0 {
		return g.gen, Set{}
	}
	g.gen++
	g.closed[g.gen] = g.open
	g.open = Set{}
	out := Set{}
	for n, s := range g.closed {
		if n > since {
			out.merge(s)
		}
	}
	return g.gen, out
}

// ack drops the sets up to n, a generation a finished scan covered.
func (g *generations) ack(n uint64) bool {
	if n > g.gen {
		return false
	}
	for k := range g.closed {
		if k <= n {
			delete(g.closed, k)
		}
	}
	if n > g.acked {
		g.acked = n
	}
	return true
}
