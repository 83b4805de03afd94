package runtime

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
)

// fastDecode parses the common shape of an invocation without
// encoding/json's reflection, whose first use costs a few hundred
// microseconds on every command. It accepts only exactly spelled keys,
// each at most once, and values of exactly the expected JSON type (or
// null, which like encoding/json leaves the zero value); on anything
// else (unknown fields, case variants, non-ASCII strings, syntax errors)
// it reports ok=false and Decode falls back to encoding/json,
// which stays the reference for both results and error messages.
// TestFastDecodeMatchesJSON and FuzzDecode check the two agree.
func fastDecode(data []byte) (inv *Invocation, ok bool) {
	d := &fastDec{s: data}
	inv = &Invocation{}
	if !d.object(func(k string) bool {
		switch k {
		case "format":
			return d.str(&inv.Format)
		case "profile":
			return d.str(&inv.Profile)
		case "bwrap":
			return d.object(func(k string) bool {
				switch k {
				case "path":
					return d.str(&inv.Bwrap.Path)
				case "requires":
					return d.strs(&inv.Bwrap.Requires)
				case "args":
					return d.strs(&inv.Bwrap.Args)
				case "identity":
					id := &inv.Bwrap.Identity
					return d.object(func(k string) bool {
						switch k {
						case "dev":
							return d.uint(&id.Dev, 64)
						case "ino":
							return d.uint(&id.Ino, 64)
						case "size":
							return d.int64(&id.Size)
						case "mtime_ns":
							return d.int64(&id.MTime)
						}
						return false
					})
				}
				return false
			})
		case "fds":
			if d.null() {
				return true
			}
			inv.FDs = []FD{}
			return d.array(func() bool {
				var fd FD
				ok := d.object(func(k string) bool {
					switch k {
					case "fd":
						return d.int(&fd.Num)
					case "kind":
						return d.str(&fd.Kind)
					}
					return false
				})
				inv.FDs = append(inv.FDs, fd)
				return ok
			})
		case "rlimits":
			l := &inv.Rlimits
			return d.object(func(k string) bool {
				switch k {
				case "as_bytes":
					return d.uint(&l.AsBytes, 64)
				case "cpu_seconds":
					return d.uint(&l.CPUSeconds, 64)
				case "nproc":
					return d.uint(&l.NProc, 64)
				case "tmp_bytes":
					return d.uint(&l.TmpBytes, 64)
				case "memory_max":
					return d.uint(&l.MemoryMax, 64)
				}
				return false
			})
		case "env":
			e := &inv.Env
			return d.object(func(k string) bool {
				switch k {
				case "unset":
					return d.strs(&e.Unset)
				case "unset_patterns":
					return d.strs(&e.UnsetPatterns)
				case "allow":
					return d.strs(&e.Allow)
				case "unset_after_rc":
					return d.strs(&e.UnsetAfterRC)
				case "credential_paths":
					if d.null() {
						return true
					}
					e.CredentialPaths = map[string][]string{}
					return d.object(func(k string) bool {
						var v []string
						ok := d.strs(&v)
						e.CredentialPaths[k] = v
						return ok
					})
				case "set":
					if d.null() {
						return true
					}
					e.Set = map[string]string{}
					return d.object(func(k string) bool {
						var v string
						ok := d.str(&v)
						e.Set[k] = v
						return ok
					})
				}
				return false
			})
		case "chdir":
			return d.str(&inv.Chdir)
		case "writable":
			return d.strs(&inv.Writable)
		case "hidden":
			return d.strs(&inv.Hidden)
		case "home":
			if d.null() {
				return true
			}
			inv.Home = &HomeLayout{}
			return d.object(func(k string) bool {
				switch k {
				case "dir":
					return d.str(&inv.Home.Dir)
				case "dirs":
					return d.strs(&inv.Home.Dirs)
				case "allowed":
					return d.strs(&inv.Home.Allowed)
				}
				return false
			})
		case "scratch":
			return d.str(&inv.Scratch)
		case "degraded_mode":
			return d.str(&inv.DegradedMode)
		case "preconditions":
			if d.null() {
				return true
			}
			inv.Preconditions = []Precondition{}
			return d.array(func() bool {
				var p Precondition
				ok := d.object(func(k string) bool {
					switch k {
					case "path":
						return d.str(&p.Path)
					case "kind":
						return d.str(&p.Kind)
					case "target":
						return d.str(&p.Target)
					case "mtime":
						return d.int64(&p.MTime)
					case "match":
						return d.strs(&p.Match)
					case "new_dirs":
						return d.boolean(&p.NewDirs)
					case "why":
						return d.str(&p.Why)
					}
					return false
				})
				inv.Preconditions = append(inv.Preconditions, p)
				return ok
			})
		case "seccomp":
			if d.null() {
				return true
			}
			s := &Seccomp{}
			inv.Seccomp = s
			return d.object(func(k string) bool {
				switch k {
				case "arch":
					return d.str(&s.Arch)
				case "program":
					if d.null() {
						return true
					}
					var b64 string
					if !d.str(&b64) {
						return false
					}
					b, err := base64.StdEncoding.DecodeString(b64)
					s.Program = b
					return err == nil
				case "blocked":
					return d.strs(&s.Blocked)
				}
				return false
			})
		case "landlock":
			if d.null() {
				return true
			}
			l := &Landlock{}
			inv.Landlock = l
			return d.object(func(k string) bool {
				switch k {
				case "min_abi":
					return d.int(&l.MinABI)
				case "tcp_connect":
					return d.ports(&l.TCPConnect)
				case "tcp_bind":
					return d.ports(&l.TCPBind)
				case "scope_abstract_unix":
					return d.boolean(&l.ScopeAbstractUnix)
				case "scope_signal":
					return d.boolean(&l.ScopeSignal)
				}
				return false
			})
		case "warnings":
			if d.null() {
				return true
			}
			inv.Warnings = []Warning{}
			return d.array(func() bool {
				var w Warning
				ok := d.object(func(k string) bool {
					switch k {
					case "rule":
						return d.str(&w.Rule)
					case "message":
						return d.str(&w.Message)
					case "source":
						return d.str(&w.Source)
					}
					return false
				})
				inv.Warnings = append(inv.Warnings, w)
				return ok
			})
		case "explain":
			if d.null() {
				return true
			}
			inv.Explain = []Explain{}
			return d.array(func() bool {
				var x Explain
				ok := d.object(func(k string) bool {
					switch k {
					case "args":
						return d.strs(&x.Args)
					case "rule":
						return d.str(&x.Rule)
					case "reason":
						return d.str(&x.Reason)
					case "source":
						return d.str(&x.Source)
					}
					return false
				})
				inv.Explain = append(inv.Explain, x)
				return ok
			})
		}
		return false
	}) {
		return nil, false
	}
	d.ws()
	if d.i != len(d.s) {
		return nil, false
	}
	return inv, true
}

// fastDec is a minimal JSON reader for fastDecode.
type fastDec struct {
	s []byte
	i int
}

func (d *fastDec) ws() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *fastDec) peek(c byte) bool {
	d.ws()
	if d.i < len(d.s) && d.s[d.i] == c {
		d.i++
		return true
	}
	return false
}

// null consumes a JSON null, if that is what comes next.
func (d *fastDec) null() bool {
	d.ws()
	if len(d.s)-d.i >= 4 && string(d.s[d.i:d.i+4]) == "null" {
		d.i += 4
		return true
	}
	return false
}

// object reads {"key": value, ...}, calling field for each key (which
// must read the value). Duplicate keys fail.
func (d *fastDec) object(field func(key string) bool) bool {
	if d.null() {
		return true // like encoding/json: no effect
	}
	if !d.peek('{') {
		return false
	}
	if d.peek('}') {
		return true
	}
	var seen []string
	for {
		var k string
		if !d.str(&k) || !d.peek(':') {
			return false
		}
		for _, s := range seen {
			if s == k {
				return false
			}
		}
		seen = append(seen, k)
		if !field(k) {
			return false
		}
		if d.peek(',') {
			continue
		}
		return d.peek('}')
	}
}

// array reads [elem, ...]; elem reads one element.
func (d *fastDec) array(elem func() bool) bool {
	if d.null() {
		return true
	}
	if !d.peek('[') {
		return false
	}
	if d.peek(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if d.peek(',') {
			continue
		}
		return d.peek(']')
	}
}

// str reads a string. Strings with escapes are handed to encoding/json.
func (d *fastDec) str(out *string) bool {
	if d.null() {
		return true
	}
	if !d.peek('"') {
		return false
	}
	start := d.i
	escaped := false
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			if !escaped {
				*out = string(d.s[start : d.i-1])
				return true
			}
			return json.Unmarshal(d.s[start-1:d.i], out) == nil
		case c == '\\':
			escaped = true
			d.i += 2
			continue
		case c < 0x20 || c >= 0x80:
			// Control characters are invalid; non-ASCII needs UTF-8
			// validation: leave both to encoding/json.
			return false
		}
		d.i++
	}
	return false
}

func (d *fastDec) strs(out *[]string) bool {
	if d.null() {
		*out = nil
		return true
	}
	list := []string{}
	ok := d.array(func() bool {
		var s string
		ok := d.str(&s)
		list = append(list, s)
		return ok
	})
	*out = list
	return ok
}

// number returns the text of a JSON integer (no fraction or exponent).
func (d *fastDec) number() (string, bool) {
	d.ws()
	start := d.i
	if d.i < len(d.s) && d.s[d.i] == '-' {
		d.i++
	}
	digits := d.i
	for d.i < len(d.s) && d.s[d.i] >= '0' && d.s[d.i] <= '9' {
		d.i++
	}
	if d.i == digits || (d.s[digits] == '0' && d.i-digits > 1) {
		return "", false
	}
	if d.i < len(d.s) {
		switch d.s[d.i] {
		case '.', 'e', 'E':
			return "", false
		}
	}
	return string(d.s[start:d.i]), true
}

func (d *fastDec) uint(out *uint64, bits int) bool {
	if d.null() {
		return true
	}
	n, ok := d.number()
	if !ok {
		return false
	}
	v, err := strconv.ParseUint(n, 10, bits)
	*out = v
	return err == nil
}

func (d *fastDec) int(out *int) bool {
	var v int64
	ok := d.intBits(&v, strconv.IntSize)
	*out = int(v)
	return ok
}

func (d *fastDec) int64(out *int64) bool { return d.intBits(out, 64) }

func (d *fastDec) intBits(out *int64, bits int) bool {
	if d.null() {
		return true
	}
	n, ok := d.number()
	if !ok {
		return false
	}
	v, err := strconv.ParseInt(n, 10, bits)
	*out = v
	return err == nil
}

func (d *fastDec) ports(out *[]uint16) bool {
	if d.null() {
		*out = nil
		return true
	}
	list := []uint16{}
	ok := d.array(func() bool {
		var v uint64
		ok := d.uint(&v, 16)
		list = append(list, uint16(v))
		return ok
	})
	*out = list
	return ok
}

func (d *fastDec) boolean(out *bool) bool {
	if d.null() {
		return true
	}
	d.ws()
	switch {
	case len(d.s)-d.i >= 4 && string(d.s[d.i:d.i+4]) == "true":
		d.i += 4
		*out = true
	case len(d.s)-d.i >= 5 && string(d.s[d.i:d.i+5]) == "false":
		d.i += 5
		*out = false
	default:
		return false
	}
	return true
}
