package seccomp

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// Disassemble renders a program as one line per instruction, with
// absolute jump targets and comments naming the seccomp_data field, the
// architecture, the syscall (when the program checks for a known
// architecture first) and the return action. It fails only on a program
// that is not a whole number of instructions; unknown opcodes are shown
// raw.
func Disassemble(prog []byte) ([]string, error) {
	ins, err := decode(prog)
	if err != nil {
		return nil, err
	}
	// What A holds, and which syscall matched on the way, are tracked
	// along the (forward-only) jumps; where paths disagree they are unknown.
	type state struct {
		loaded  int64 // offset of the last ld, -1 unknown
		syscall string
	}
	states := make([]*state, len(ins)+256)
	flow := func(to int, s state) {
		if to >= len(states) {
			return
		}
		if old := states[to]; old == nil {
			states[to] = &s
		} else if *old != s {
			if old.loaded != s.loaded {
				old.loaded = -1
			}
			if old.syscall != s.syscall {
				old.syscall = ""
			}
		}
	}
	flow(0, state{loaded: -1})
	var arch *archInfo
	names := map[uint32]string{}
	lines := make([]string, len(ins))
	for pc, in := range ins {
		st := state{loaded: -1}
		if states[pc] != nil {
			st = *states[pc]
		}
		taken, fallen := st, st
		var text, note string
		switch in.op {
		case opLdAbsW:
			text = fmt.Sprintf("ld [%d]", in.k)
			note = fieldName(in.k)
			fallen.loaded = int64(in.k)
			flow(pc+1, fallen)
		case opAndK:
			text = fmt.Sprintf("and #0x%x", in.k)
			flow(pc+1, st) // A still derives from the same field
		case opJa:
			text = fmt.Sprintf("ja %d", pc+1+int(in.k))
			flow(pc+1+int(in.k), st)
		case opJeqK, opJgtK, opJgeK, opJsetK:
			mn := map[uint16]string{opJeqK: "jeq", opJgtK: "jgt", opJgeK: "jge", opJsetK: "jset"}[in.op]
			text = fmt.Sprintf("%-4s #0x%x jt %d jf %d", mn, in.k, pc+1+int(in.jt), pc+1+int(in.jf))
			switch {
			case st.loaded == offArch:
				note = auditArchNames[in.k]
				if a := archByAudit(in.k); a != nil && arch == nil {
					arch = a
					for n, v := range a.nr {
						names[v] = n
					}
				}
			case st.loaded == offNr:
				if in.k == x32SyscallBit && in.op == opJgeK {
					note = "x32 syscall bit"
				} else if in.k == 0xffffffff {
					note = "-1 (skipped by a tracer)"
				} else if n, ok := names[in.k]; ok {
					note = n
					if in.op == opJeqK {
						taken.syscall = n
					}
				}
			case st.loaded >= offArgs:
				note = argValueName(st.syscall, int(st.loaded-offArgs)/8, in.k)
			}
			flow(pc+1+int(in.jt), taken)
			flow(pc+1+int(in.jf), fallen)
		case opRetK:
			text = "ret " + actionName(in.k)
		default:
			text = fmt.Sprintf("op 0x%04x jt %d jf %d k 0x%x", in.op, in.jt, in.jf, in.k)
			flow(pc+1, state{loaded: -1})
		}
		if note != "" {
			text = fmt.Sprintf("%-34s ; %s", text, note)
		}
		lines[pc] = fmt.Sprintf("%4d: %s", pc, text)
	}
	return lines, nil
}

func archByAudit(audit uint32) *archInfo {
	for _, name := range Arches() {
		if a := archs[name]; a.audit == audit {
			return a
		}
	}
	return nil
}

func fieldName(off uint32) string {
	switch {
	case off == offNr:
		return "nr"
	case off == offArch:
		return "arch"
	case off == offIP:
		return "instruction_pointer (low)"
	case off == offIP+4:
		return "instruction_pointer (high)"
	case off >= offArgs && off < offArgs+48 && off%4 == 0:
		half := "low"
		if (off-offArgs)%8 == 4 {
			half = "high"
		}
		return fmt.Sprintf("args[%d] (%s 32 bits)", (off-offArgs)/8, half)
	}
	return ""
}

func argValueName(syscall string, arg int, v uint32) string {
	if n, ok := socketArgNames[arg][v]; ok && syscall == "socket" {
		return "socket " + n
	}
	for _, g := range append(groups[:len(groups):len(groups)], netGroups...) {
		for _, r := range g.Args {
			if r.Syscall != syscall || r.Arg != arg {
				continue
			}
			for i, rv := range r.Values {
				if rv == v {
					return syscall + " " + r.Names[i]
				}
			}
		}
	}
	return ""
}

func actionName(k uint32) string {
	data := k & 0xffff
	switch k &^ 0xffff {
	case retAllow:
		return "ALLOW"
	case retKillProcess:
		return "KILL_PROCESS"
	case retKillThread:
		return "KILL_THREAD"
	case retTrap:
		return fmt.Sprintf("TRAP(%d)", data)
	case retErrno:
		if n, ok := errnoNames[data]; ok {
			return "ERRNO(" + n + ")"
		}
		return fmt.Sprintf("ERRNO(%d)", data)
	case retUserNotif:
		return "USER_NOTIF"
	case retTrace:
		return fmt.Sprintf("TRACE(%d)", data)
	case retLog:
		return "LOG"
	}
	return strings.ToUpper(fmt.Sprintf("0x%08x", k))
}

// decode splits raw sock_filter records.
func decode(prog []byte) ([]insn, error) {
	if len(prog) == 0 || len(prog)%insnBytes != 0 {
		return nil, fmt.Errorf("seccomp: program of %d bytes is not a whole number of %d-byte instructions", len(prog), insnBytes)
	}
	out := make([]insn, len(prog)/insnBytes)
	for i := range out {
		b := prog[i*insnBytes:]
		out[i] = insn{
			op: binary.LittleEndian.Uint16(b),
			jt: b[2], jf: b[3],
			k: binary.LittleEndian.Uint32(b[4:]),
		}
	}
	return out, nil
}
