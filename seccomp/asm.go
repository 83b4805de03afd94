package seccomp

import (
	"encoding/binary"
	"fmt"
)

// Classic BPF opcodes the builder emits (linux/filter.h).
const (
	opLdAbsW  = 0x20 // BPF_LD | BPF_W | BPF_ABS: A = data[k:k+4]
	opJa      = 0x05 // BPF_JMP | BPF_JA: pc += k
	opJeqK    = 0x15 // BPF_JMP | BPF_JEQ | BPF_K
	opJgtK    = 0x25 // BPF_JMP | BPF_JGT | BPF_K
	opJgeK    = 0x35 // BPF_JMP | BPF_JGE | BPF_K
	opJsetK   = 0x45 // BPF_JMP | BPF_JSET | BPF_K
	opRetK    = 0x06 // BPF_RET | BPF_K
	opAndK    = 0x54 // BPF_ALU | BPF_AND | BPF_K: A &= k
	maxInsns  = 4096 // BPF_MAXINSNS
	insnBytes = 8    // sizeof(struct sock_filter)
)

// Seccomp return actions (linux/seccomp.h).
const (
	retKillProcess = 0x80000000
	retKillThread  = 0x00000000
	retTrap        = 0x00030000
	retErrno       = 0x00050000
	retUserNotif   = 0x7fc00000
	retTrace       = 0x7ff00000
	retLog         = 0x7ffc0000
	retAllow       = 0x7fff0000
)

// Offsets into struct seccomp_data.
const (
	offNr   = 0
	offArch = 4
	offIP   = 8
	offArgs = 16
)

// insn is one struct sock_filter.
type insn struct {
	op     uint16
	jt, jf uint8
	k      uint32
}

// asm assembles a straight-line program with forward jumps to labels.
type asm struct {
	prog   []insn
	labels map[string]int
	refs   []ref
}

// ref is a jump target still to be resolved: branch 't' or 'f' of the
// instruction at index at.
type ref struct {
	at     int
	branch byte
	label  string
}

func newAsm() *asm { return &asm{labels: map[string]int{}} }

// ld loads the 32-bit word at offset off of seccomp_data into A.
func (a *asm) ld(off uint32) { a.prog = append(a.prog, insn{op: opLdAbsW, k: off}) }

// and masks A with k.
func (a *asm) and(k uint32) { a.prog = append(a.prog, insn{op: opAndK, k: k}) }

// ret returns action k.
func (a *asm) ret(k uint32) { a.prog = append(a.prog, insn{op: opRetK, k: k}) }

// jump emits a conditional jump comparing A with k. An empty label means
// "fall through to the next instruction".
func (a *asm) jump(op uint16, k uint32, jt, jf string) {
	at := len(a.prog)
	a.prog = append(a.prog, insn{op: op, k: k})
	if jt != "" {
		a.refs = append(a.refs, ref{at, 't', jt})
	}
	if jf != "" {
		a.refs = append(a.refs, ref{at, 'f', jf})
	}
}

// mark binds label to the next instruction.
func (a *asm) mark(label string) { a.labels[label] = len(a.prog) }

// assemble resolves the labels and encodes the program, little-endian
// (the byte order of every architecture BuildNetwork supports).
func (a *asm) assemble() ([]byte, error) {
	for _, r := range a.refs {
		to, ok := a.labels[r.label]
		if !ok {
			return nil, fmt.Errorf("seccomp: internal error: undefined label %q", r.label)
		}
		off := to - r.at - 1
		if off < 0 || off > 255 {
			return nil, fmt.Errorf("seccomp: internal error: jump from %d to %q (%d) out of range", r.at, r.label, to)
		}
		if r.branch == 't' {
			a.prog[r.at].jt = uint8(off)
		} else {
			a.prog[r.at].jf = uint8(off)
		}
	}
	if len(a.prog) == 0 || len(a.prog) > maxInsns {
		return nil, fmt.Errorf("seccomp: internal error: program of %d instructions", len(a.prog))
	}
	out := make([]byte, 0, len(a.prog)*insnBytes)
	for _, in := range a.prog {
		out = binary.LittleEndian.AppendUint16(out, in.op)
		out = append(out, in.jt, in.jf)
		out = binary.LittleEndian.AppendUint32(out, in.k)
	}
	return out, nil
}
