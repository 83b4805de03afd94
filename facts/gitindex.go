package facts

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// This file reads the paths of a git index (.git/index) without running
// git: compile never runs git on a repository a command may have
// prepared. Formats 2, 3 and 4 (path-prefix compression), SHA-1 and
// SHA-256 object names, bounded by MaxIndexEntries.

// MaxIndexEntries bounds the entries ReadIndexPaths accepts.
const MaxIndexEntries = 1 << 21

// ReadIndexPaths returns the paths a git index lists, in its order.
// hashLen is the object name length: 20 (SHA-1) or 32 (SHA-256).
func ReadIndexPaths(data []byte, hashLen int) ([]string, error) {
	if len(data) < 12 || string(data[:4]) != "DIRC" {
		return nil, errors.New("not a git index")
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return nil, fmt.Errorf("git index version %d", version)
	}
	count := binary.BigEndian.Uint32(data[8:12])
	if count > MaxIndexEntries {
		return nil, fmt.Errorf("git index lists %d entries, more than %d", count, MaxIndexEntries)
	}
	out := make([]string, 0, count)
	off := 12
	prev := ""
	fixed := 40 + hashLen + 2 // stat data, object name, flags
	for i := uint32(0); i < count; i++ {
		if off+fixed > len(data) {
			return nil, errors.New("git index truncated")
		}
		flags := binary.BigEndian.Uint16(data[off+40+hashLen:])
		start := off + fixed
		if version >= 3 && flags&0x4000 != 0 {
			start += 2 // extended flags
		}
		if start > len(data) {
			return nil, errors.New("git index truncated")
		}
		var name string
		if version == 4 {
			strip, n := indexVarint(data[start:])
			if n == 0 || strip > uint64(len(prev)) {
				return nil, errors.New("git index: bad path compression")
			}
			start += n
			end := indexNUL(data, start)
			if end < 0 {
				return nil, errors.New("git index truncated")
			}
			name = prev[:len(prev)-int(strip)] + string(data[start:end])
			off = end + 1
		} else {
			end := indexNUL(data, start)
			if end < 0 {
				return nil, errors.New("git index truncated")
			}
			name = string(data[start:end])
			// The entry is padded with 1 to 8 NULs to a multiple of 8.
			entry := end - off
			off += (entry + 8) &^ 7
		}
		out = append(out, name)
		prev = name
	}
	return out, nil
}

func indexNUL(data []byte, from int) int {
	for i := from; i < len(data); i++ {
		if data[i] == 0 {
			return i
		}
	}
	return -1
}

// indexVarint decodes git's offset varint (each continuation adds one
// before shifting); n is 0 when it is malformed.
func indexVarint(b []byte) (v uint64, n int) {
	for i, c := range b {
		if i == 9 {
			return 0, 0
		}
		if i == 0 {
			v = uint64(c & 127)
		} else {
			v = ((v + 1) << 7) | uint64(c&127)
		}
		if c&128 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}
