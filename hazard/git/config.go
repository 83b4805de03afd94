package git

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// ConfigEntry is one variable of a git configuration file: Key is
// "section.key" or "section.subsection.key" with the section and the key
// lower-cased (as git compares them) and the subsection as written;
// Value is the decoded value, Bool set when the key had no "=" (git's
// implicit true); Line is its 1-based line.
type ConfigEntry struct {
	Key   string
	Value string
	Bool  bool
	Line  int
}

// errConfig is what ParseConfig returns for a line git itself
// rejects ("bad config line"): git dies on such a file, but a caller
// that must not be fooled treats it as unreadable.
var errConfig = errors.New("bad config line")

// ParseConfig parses a git configuration file by git's own grammar
// (config.c: parse_source, get_base_var, get_extended_base_var,
// get_value, parse_value): an optional UTF-8 byte-order mark; comments
// from '#' or ';'; "[section]", "[section \"sub\"]" and the legacy
// "[section.sub]" headers, keys on the same line as a header; keys that
// start with a letter and hold letters, digits and '-'; a key without
// "=" is boolean true; values with double quotes, the escapes \n \t \b
// \\ \" and backslash-newline continuations, unquoted blanks collapsed
// and trailing ones dropped. Anything else is an error naming the line,
// as git's "bad config line".
func ParseConfig(content []byte) ([]ConfigEntry, error) {
	// git's reader (config.c, get_next_char) turns every CR LF into LF
	// before anything else looks at it: a backslash before a CR LF is a
	// line continuation there, and must be here.
	if bytes.Contains(content, []byte("\r\n")) {
		content = bytes.ReplaceAll(content, []byte("\r\n"), []byte("\n"))
	}
	p := configParser{s: content, line: 1}
	if strings.HasPrefix(string(content), "\xef\xbb\xbf") {
		p.i = 3
	}
	var out []ConfigEntry
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '\n':
			p.line++
			p.i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f':
			p.i++
		case c == '#' || c == ';':
			p.skipLine()
		case c == '[':
			p.i++
			if err := p.header(); err != nil {
				return out, err
			}
		case isAlpha(c):
			e, err := p.variable()
			if err != nil {
				return out, err
			}
			out = append(out, e)
		default:
			return out, p.fail()
		}
	}
	return out, nil
}

type configParser struct {
	s       []byte
	i, line int
	section string // "section" or "section.subsection", section lower-cased
}

func (p *configParser) fail() error {
	return fmt.Errorf("line %d: %w", p.line, errConfig)
}

func (p *configParser) skipLine() {
	for p.i < len(p.s) && p.s[p.i] != '\n' {
		p.i++
	}
}

// header reads a header after its '['.
func (p *configParser) header() error {
	var name strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		switch {
		case c == '\n':
			return p.fail()
		case c == ']':
			if name.Len() == 0 {
				return p.fail()
			}
			p.section = name.String() // "[a.b]": git lower-cases it all
			return nil
		case c == ' ' || c == '\t':
			return p.subsection(name.String())
		case isKeyChar(c) || c == '.':
			name.WriteByte(lower(c))
		default:
			return p.fail()
		}
	}
	return p.fail()
}

// subsection reads ` "sub"]` after a section name.
func (p *configParser) subsection(name string) error {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
	if p.i >= len(p.s) || p.s[p.i] != '"' {
		return p.fail()
	}
	p.i++
	var sub strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		switch c {
		case '\n':
			return p.fail()
		case '"':
			if p.i >= len(p.s) || p.s[p.i] != ']' {
				return p.fail()
			}
			p.i++
			p.section = name + "." + sub.String()
			return nil
		case '\\':
			if p.i >= len(p.s) || p.s[p.i] == '\n' {
				return p.fail()
			}
			sub.WriteByte(p.s[p.i])
			p.i++
		default:
			sub.WriteByte(c)
		}
	}
	return p.fail()
}

// variable reads "key", "key = value" or "key" up to the end of its
// (possibly continued) line.
func (p *configParser) variable() (ConfigEntry, error) {
	if p.section == "" {
		return ConfigEntry{}, p.fail() // a key before any section
	}
	line := p.line
	var key strings.Builder
	for p.i < len(p.s) && isKeyChar(p.s[p.i]) {
		key.WriteByte(lower(p.s[p.i]))
		p.i++
	}
	e := ConfigEntry{Key: p.section + "." + key.String(), Line: line}
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
	if p.i >= len(p.s) || p.s[p.i] == '\n' {
		e.Bool = true
		return e, nil
	}
	if p.s[p.i] == '\r' && (p.i+1 == len(p.s) || p.s[p.i+1] == '\n') {
		p.i++
		e.Bool = true
		return e, nil
	}
	if p.s[p.i] != '=' {
		return e, p.fail()
	}
	p.i++
	v, err := p.value()
	e.Value = v
	return e, err
}

// value reads a value after its '=' (config.c: parse_value).
func (p *configParser) value() (string, error) {
	var b strings.Builder
	quoted, comment := false, false
	spaces := 0
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		if c == '\n' {
			if quoted {
				return "", p.fail()
			}
			p.line++
			return b.String(), nil
		}
		if comment {
			continue
		}
		if !quoted && (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
			if b.Len() > 0 {
				spaces++
			}
			continue
		}
		if !quoted && (c == ';' || c == '#') {
			comment = true
			continue
		}
		for ; spaces > 0; spaces-- {
			b.WriteByte(' ')
		}
		switch c {
		case '\\':
			if p.i >= len(p.s) {
				return "", p.fail()
			}
			n := p.s[p.i]
			p.i++
			switch n {
			case '\n':
				p.line++
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			case 'n':
				b.WriteByte('\n')
			case '\\', '"':
				b.WriteByte(n)
			default:
				return "", p.fail()
			}
		case '"':
			quoted = !quoted
		default:
			b.WriteByte(c)
		}
	}
	if quoted {
		return "", p.fail()
	}
	return b.String(), nil
}

func isAlpha(c byte) bool   { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isKeyChar(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' || c == '-' }
func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
