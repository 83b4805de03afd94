package bounded

import (
	"encoding/binary"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A child that runs out of address space inside an allocation dies in
// the Go runtime, with no chance to report where it was. So the child
// writes each position it is marked at (Mark) into a page of memory it
// shares with the parent, which reads the last one when the child has
// died: a crossed bound names the file, line and rule or field either
// way.
//
// The page holds a generation number (8 bytes) and two slots; a
// position is written to the slot the next generation selects and the
// generation is published after it, so the slot of the published
// generation is always whole, even if the child dies while writing.
const (
	pageSize = 4096
	slotSize = (pageSize - 8) / 2
)

// newWherePage is the parent's end: a memory file of one page, passed to
// the child; nil if the system has none (the position is then known only
// when the child reports it itself).
func newWherePage() *os.File {
	fd, err := unix.MemfdCreate("bwpolicy-where", unix.MFD_CLOEXEC)
	if err != nil {
		return nil
	}
	f := os.NewFile(uintptr(fd), "where")
	if err := f.Truncate(pageSize); err != nil {
		f.Close()
		return nil
	}
	return f
}

// readWherePage is the last position the (dead) child published.
func readWherePage(f *os.File) Where {
	if f == nil {
		return Where{}
	}
	var page [pageSize]byte
	if n, _ := f.ReadAt(page[:], 0); n != pageSize {
		return Where{}
	}
	gen := binary.LittleEndian.Uint64(page[:8])
	if gen == 0 {
		return Where{}
	}
	return decodeWhere(page[8+(gen%2)*slotSize:][:slotSize])
}

// sharedPage is the child's end: the page mapped, and the generation.
type sharedPage struct {
	mu  sync.Mutex
	mem []byte
	gen uint64
}

var shared *sharedPage

// mapWherePage maps the page the parent passed as fd (the child's start).
func mapWherePage(fd int) {
	mem, err := syscall.Mmap(fd, 0, pageSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return
	}
	shared = &sharedPage{mem: mem}
}

// publish writes w to the page.
func (p *sharedPage) publish(w *Where) {
	p.mu.Lock()
	defer p.mu.Unlock()
	next := p.gen + 1
	encodeWhere(p.mem[8+(next%2)*slotSize:][:slotSize], w)
	atomic.StoreUint64((*uint64)(unsafe.Pointer(&p.mem[0])), next)
	p.gen = next
}

// encodeWhere writes w into slot: line, column, then the file and the
// name, each with its length, cut to fit.
func encodeWhere(slot []byte, w *Where) {
	binary.LittleEndian.PutUint32(slot[0:], uint32(w.Line))
	binary.LittleEndian.PutUint32(slot[4:], uint32(w.Col))
	rest := slot[8:]
	for _, s := range []string{w.File, w.Name} {
		max := len(rest)/2 - 2
		if len(s) > max {
			s = s[:max]
		}
		binary.LittleEndian.PutUint16(rest, uint16(len(s)))
		copy(rest[2:], s)
		rest = rest[2+len(s):]
	}
}

func decodeWhere(slot []byte) Where {
	w := Where{Line: int(binary.LittleEndian.Uint32(slot[0:])), Col: int(binary.LittleEndian.Uint32(slot[4:]))}
	rest := slot[8:]
	var s [2]string
	for i := range s {
		n := int(binary.LittleEndian.Uint16(rest))
		if 2+n > len(rest) {
			return Where{}
		}
		s[i] = string(rest[2 : 2+n])
		rest = rest[2+n:]
	}
	w.File, w.Name = s[0], s[1]
	return w
}
