package seccomp

import (
	"encoding/binary"
	"fmt"
	"testing"
)

// seccompData is struct seccomp_data.
type seccompData struct {
	nr   int32
	arch uint32
	ip   uint64
	args [6]uint64
}

// bytes lays the record out as the kernel does on a little-endian machine.
func (d seccompData) bytes() []byte {
	b := make([]byte, 64)
	binary.LittleEndian.PutUint32(b[0:], uint32(d.nr))
	binary.LittleEndian.PutUint32(b[4:], d.arch)
	binary.LittleEndian.PutUint64(b[8:], d.ip)
	for i, a := range d.args {
		binary.LittleEndian.PutUint64(b[16+8*i:], a)
	}
	return b
}

// run interprets prog over d the way the kernel's seccomp does, for the
// subset of classic BPF the builder emits, and fails on anything else
// (unknown opcode, unaligned or out-of-range load, jump past the end,
// falling off the end).
func run(prog []byte, d seccompData) (uint32, error) {
	ins, err := decode(prog)
	if err != nil {
		return 0, err
	}
	data := d.bytes()
	var A uint32
	for pc := 0; pc < len(ins); pc++ {
		in := ins[pc]
		jump := func(cond bool) {
			if cond {
				pc += int(in.jt)
			} else {
				pc += int(in.jf)
			}
		}
		switch in.op {
		case opLdAbsW:
			if in.k%4 != 0 || in.k+4 > uint32(len(data)) {
				return 0, fmt.Errorf("pc %d: bad load offset %d", pc, in.k)
			}
			A = binary.LittleEndian.Uint32(data[in.k:])
		case opJa:
			pc += int(in.k)
		case opAndK:
			A &= in.k
		case opJeqK:
			jump(A == in.k)
		case opJgtK:
			jump(A > in.k)
		case opJgeK:
			jump(A >= in.k)
		case opJsetK:
			jump(A&in.k != 0)
		case opRetK:
			return in.k, nil
		default:
			return 0, fmt.Errorf("pc %d: opcode 0x%04x not supported", pc, in.op)
		}
		if pc+1 >= len(ins) {
			return 0, fmt.Errorf("pc %d: jump or fall-through past the end", pc)
		}
	}
	return 0, fmt.Errorf("fell off the end")
}

func TestVMRejectsBadPrograms(t *testing.T) {
	for name, p := range map[string][]insn{
		"fall off end":  {{op: opLdAbsW, k: 0}},
		"jump past end": {{op: opJeqK, jt: 5}, {op: opRetK}},
		"bad load":      {{op: opLdAbsW, k: 64}, {op: opRetK}},
		"bad opcode":    {{op: 0x07}, {op: opRetK}},
	} {
		b := make([]byte, 0)
		for _, in := range p {
			b = binary.LittleEndian.AppendUint16(b, in.op)
			b = append(b, in.jt, in.jf)
			b = binary.LittleEndian.AppendUint32(b, in.k)
		}
		if _, err := run(b, seccompData{}); err == nil {
			t.Errorf("%s: run accepted it", name)
		}
	}
}
