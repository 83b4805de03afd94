package ledger

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
)

// IndexSuffix names an environment's directory index: INVOCATION +
// IndexSuffix.
const IndexSuffix = ".index"

const indexHeader = "bwpolicy-index 1\n"

// maxIndexFile bounds an index read back.
const maxIndexFile = 512 << 20

// Index keeps, per directory of the writable set, the reduced listing a
// finished scan read there (the names that matter to it: directories,
// symlinks, the names git looks for; the others counted), with the
// directory's identity and status-change time. A directory whose ctime
// is what the index holds has the same entries (every entry added,
// removed or renamed sets its ctime, which no unprivileged program sets
// back), so the next scan takes the listing from the index instead of
// reading the directory: the scan's cost follows the directories that
// changed. It is a cache: a miss costs a listing, never a judgement.
type Index struct {
	dirs map[string]*Listing
	// Changed is set when Put changed the index since it was loaded.
	Changed bool
}

// Listing is one directory's reduced listing.
type Listing struct {
	Dev, Ino uint64
	Ctime    int64
	// Count is the number of entries the directory holds.
	Count int
	Names []string
	// Kinds: for each of Names, 'd' directory, 'l' symlink, 'f' other.
	Kinds []byte
}

// NewIndex returns an empty index.
func NewIndex() *Index { return &Index{dirs: map[string]*Listing{}} }

// Get returns the listing of dir kept in the index, or nil.
func (x *Index) Get(dir string) *Listing { return x.dirs[dir] }

// Put keeps l as dir's listing.
func (x *Index) Put(dir string, l *Listing) {
	x.dirs[dir] = l
	x.Changed = true
}

// Each calls f with every directory kept and its listing.
func (x *Index) Each(f func(dir string, l *Listing)) {
	for d, l := range x.dirs {
		f(d, l)
	}
}

// Len is the number of directories kept.
func (x *Index) Len() int { return len(x.dirs) }

// Save writes the index to p atomically, mode 0600.
func (x *Index) Save(p string) error {
	if err := writeAtomic(p, x.appendTo([]byte(indexHeader))); err != nil {
		return err
	}
	x.Changed = false
	return nil
}

// appendTo appends the encoded listings to b.
func (x *Index) appendTo(b []byte) []byte {
	keys := make([]string, 0, len(x.dirs))
	for k := range x.dirs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	str := func(s string) { b = binary.AppendUvarint(b, uint64(len(s))); b = append(b, s...) }
	for _, k := range keys {
		l := x.dirs[k]
		str(k)
		b = binary.AppendUvarint(b, l.Dev)
		b = binary.AppendUvarint(b, l.Ino)
		b = binary.AppendVarint(b, l.Ctime)
		b = binary.AppendUvarint(b, uint64(l.Count))
		b = binary.AppendUvarint(b, uint64(len(l.Names)))
		for i, n := range l.Names {
			b = append(b, l.Kinds[i])
			str(n)
		}
	}
	return b
}

var errIndex = errors.New("malformed index")

// LoadIndex reads the index at p, the caller's own file as Load
// requires of a ledger. An index that does not parse is an error (the
// caller starts a new one: it is a cache).
func LoadIndex(p string) (*Index, error) {
	b, err := readOwn(p, maxIndexFile)
	if err != nil {
		return nil, err
	}
	if len(b) < len(indexHeader) || string(b[:len(indexHeader)]) != indexHeader {
		return nil, fmt.Errorf("index %s: %w", p, errIndex)
	}
	x, err := parseIndex(b[len(indexHeader):])
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", p, err)
	}
	return x, nil
}

// parseIndex decodes listings appendTo encoded.
func parseIndex(b []byte) (*Index, error) {
	var err error
	// One copy of the file as a string: the paths and names are slices
	// of it, not an allocation each (tens of thousands per load).
	all := string(b)
	x := NewIndex()
	uv := func() uint64 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			err = errIndex
			return 0
		}
		b = b[n:]
		return v
	}
	str := func() string {
		n := uv()
		if err != nil || n > uint64(len(b)) {
			err = errIndex
			return ""
		}
		at := len(all) - len(b)
		b = b[n:]
		return all[at : at+int(n)]
	}
	for len(b) > 0 && err == nil {
		dir := str()
		l := &Listing{Dev: uv(), Ino: uv()}
		ct, n := binary.Varint(b)
		if n <= 0 {
			return nil, errIndex
		}
		b = b[n:]
		l.Ctime = ct
		l.Count = int(uv())
		k := uv()
		if err != nil || k > uint64(len(b)) {
			return nil, errIndex
		}
		l.Names, l.Kinds = make([]string, 0, k), make([]byte, 0, k)
		for i := uint64(0); i < k && err == nil; i++ {
			if len(b) == 0 {
				err = errIndex
				break
			}
			kind := b[0]
			b = b[1:]
			l.Kinds = append(l.Kinds, kind)
			l.Names = append(l.Names, str())
		}
		x.dirs[dir] = l
	}
	if err != nil {
		return nil, err
	}
	return x, nil
}
