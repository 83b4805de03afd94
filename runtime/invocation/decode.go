package invocation

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unsafe"
)

// maxFD is the largest file descriptor number an invocation may ask for.
// bwrap only needs a handful; the bound keeps a hand-edited file from
// making the runtime build a huge descriptor table.
const maxFD = 1023

// maxInvocationSize bounds what Load reads (a compiled invocation is a few
// kilobytes).
const maxInvocationSize = 16 << 20

// Load reads and decodes the invocation at path (see ReadInvocation and
// Decode). Errors name the file.
func Load(path string) (*Invocation, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read invocation: %w", err)
	}
	defer f.Close()
	return DecodeFile(f, path)
}

// ReadInvocation reads the file at path, which must be a regular file (a
// named pipe or a device is refused without blocking, see OpenRegular)
// of at most maxInvocationSize bytes: reading stops there, so a huge
// file costs no more than the bound.
func ReadInvocation(path string) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read invocation: %w", err)
	}
	defer f.Close()
	return readInvocationFile(f, path)
}

// DecodeFile reads and decodes the invocation open as f (named path).
func DecodeFile(f *os.File, path string) (*Invocation, error) {
	return decodeFile(f, path, false)
}

// ReadFileToRun is DecodeFile for a runtime that is about to run the
// invocation, and returns the bytes read as well (the decoded strings
// share them: the caller must not change them). Warnings, which are for
// people, are checked as strictly as DecodeFile checks them (an
// invocation one rejects, the other rejects) but not kept: they are
// nil. In a fresh process every byte kept is paid in page faults on
// every command's path.
func ReadFileToRun(f *os.File, path string) ([]byte, *Invocation, error) {
	return readDecode(f, path, decodeMode{toRun: true})
}

func decodeFile(f *os.File, path string, toRun bool) (*Invocation, error) {
	_, inv, err := readDecode(f, path, decodeMode{toRun: toRun})
	return inv, err
}

func readDecode(f *os.File, path string, m decodeMode) ([]byte, *Invocation, error) {
	data, err := readInvocationFile(f, path)
	if err != nil {
		return nil, nil, err
	}
	inv, err := decodeText(data, unsafe.String(unsafe.SliceData(data), len(data)), m)
	if err != nil {
		return nil, nil, fmt.Errorf("invocation %s: %w", path, err)
	}
	return data, inv, nil
}

// readInvocationFile reads the invocation open as f (named path), at most
// maxInvocationSize bytes.
func readInvocationFile(f *os.File, path string) ([]byte, error) {
	data, err := ReadLimited(f, maxInvocationSize+1)
	if err != nil {
		return nil, fmt.Errorf("cannot read invocation %s: %w", path, ReadError(path, err))
	}
	if len(data) > maxInvocationSize {
		return nil, fmt.Errorf("invocation %s: larger than %d bytes; not a bwpolicy invocation", path, maxInvocationSize)
	}
	return data, nil
}

// ReadLimited reads f to its end or to limit bytes, into a buffer sized
// from its length (at most limit) when it is a regular file (io.ReadAll would grow one
// from 512 bytes: a dozen copies and page faults for a 20 KB invocation,
// on the path of every command).
func ReadLimited(f *os.File, limit int64) ([]byte, error) {
	size := int64(512)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = min(st.Size()+1, limit) // +1: EOF is seen without growing; a larger file is read once, to the limit
	}
	data := make([]byte, 0, size)
	for int64(len(data)) < limit {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)] // the file grew: let append pick a size
		}
		room := min(int64(cap(data)-len(data)), limit-int64(len(data)))
		n, err := f.Read(data[len(data) : len(data)+int(room)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
	}
	return data, nil
}

// Decode parses an invocation strictly: unknown fields, trailing data, a
// "format" other than Format and internally inconsistent content (see
// Validate) are errors. A truncated or hand-edited file gets a message
// with the line and column of the problem.
func Decode(data []byte) (*Invocation, error) {
	return decodeText(data, string(data), decodeMode{})
}

// decodeText is Decode with text, data's bytes as a string (decodeFile
// passes the buffer it read, which nobody else holds or writes again,
// so the decoded strings share its memory instead of a copy: see
// fastDecodeText); m.toRun drops Warnings (ReadFileToRun). Each
// explanation row's Args are filled in from Bwrap.Args.
func decodeText(data []byte, text string, m decodeMode) (*Invocation, error) {
	if inv, ok := fastDecodeText(data, text, m); ok {
		if inv.Format != Format {
			return nil, formatError(inv.Format)
		}
		if err := Validate(inv); err != nil {
			return nil, err
		}
		LinkExplain(inv.Explain, inv.Bwrap.Args)
		return inv, nil
	}
	inv, err := decodeJSON(data)
	if err == nil {
		LinkExplain(inv.Explain, inv.Bwrap.Args)
		if m.toRun {
			inv.Warnings = nil
		}
	}
	return inv, err
}

// decodeJSON is Decode with encoding/json, the reference decoder.
func decodeJSON(data []byte) (*Invocation, error) {
	var inv Invocation
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&inv); err != nil {
		// A newer (or older) format may well have fields this runtime does
		// not know; say that instead of "unknown field".
		if f, ok := peekFormat(data); ok && f != Format {
			return nil, formatError(f)
		}
		return nil, jsonError(data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		off := dec.InputOffset()
		return nil, fmt.Errorf("%s: unexpected data after the invocation object", position(data, off))
	}
	if inv.Format != Format {
		return nil, formatError(inv.Format)
	}
	if err := Validate(&inv); err != nil {
		return nil, err
	}
	return &inv, nil
}

func peekFormat(data []byte) (string, bool) {
	var v struct {
		Format *string `json:"format"`
	}
	if json.Unmarshal(data, &v) != nil || v.Format == nil {
		return "", false
	}
	return *v.Format, true
}

func formatError(got string) error {
	if got == "" {
		return fmt.Errorf("no \"format\" field: not a bwpolicy invocation (want %q); recompile with `bwpolicy compile`", Format)
	}
	return fmt.Errorf("invocation format %q is not supported by this runtime (it reads %q); recompile with `bwpolicy compile` or use a matching bwrun", got, Format)
}

// jsonError turns encoding/json's errors into messages with a position.
func jsonError(data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return errors.New("empty file: not a bwpolicy invocation")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s: invocation is truncated (unexpected end of JSON); recompile with `bwpolicy compile`", position(data, int64(len(data))))
	case errors.As(err, &syn):
		return fmt.Errorf("%s: invalid JSON: %v", position(data, syn.Offset), syn)
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "(top level)"
		}
		return fmt.Errorf("%s: field %s: expected %s, found JSON %s", position(data, typ.Offset), field, typ.Type, typ.Value)
	}
	msg := err.Error()
	if strings.HasPrefix(msg, "json: unknown field ") {
		return fmt.Errorf("unknown field %s (hand-edited or from a different bwpolicy version); recompile with `bwpolicy compile`", strings.TrimPrefix(msg, "json: unknown field "))
	}
	return fmt.Errorf("invalid invocation: %v", err)
}

// position renders a byte offset as "line L, column C" (1-based).
func position(data []byte, off int64) string {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := int(off) - bytes.LastIndexByte(data[:off], '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}

// fdOptions maps every bwrap option that takes a file descriptor to the
// FD kinds that may be given to it.
var fdOptions = map[string][]string{
	"--info-fd":        {FDInfo},
	"--block-fd":       {FDBlock},
	"--json-status-fd": {FDStatus},
	"--seccomp":        {FDSeccomp},
	"--add-seccomp-fd": {FDSeccomp},
	"--ro-bind-data":   {FDEmpty},
	"--bind-data":      {FDEmpty},
	"--file":           {FDEmpty},
	// The runtime cannot supply these (no FD kind for them); listing them
	// lets Validate say so instead of "unknown option".
	"--args":            nil,
	"--userns":          nil,
	"--userns2":         nil,
	"--pidns":           nil,
	"--sync-fd":         nil,
	"--bind-fd":         nil,
	"--ro-bind-fd":      nil,
	"--userns-block-fd": nil,
}

// BwrapArity returns the number of values bwrap option opt takes, and
// whether it is a bwrap option at all (bwrap 0.5 to 0.12). Tools that
// walk an invocation's arguments (bench) use it; verify keeps its own
// table on purpose.
func BwrapArity(opt string) (int, bool) {
	n, ok := bwrapArity[opt]
	return n, ok
}

// bwrapArity is the number of values each bwrap option takes (bwrap 0.5
// to 0.12). Validate uses it to tell options from their values.
var bwrapArity = map[string]int{
	"--help": 0, "--version": 0, "--level-prefix": 0,
	"--unshare-all": 0, "--share-net": 0, "--unshare-user": 0, "--unshare-user-try": 0,
	"--unshare-ipc": 0, "--unshare-pid": 0, "--unshare-net": 0, "--unshare-uts": 0,
	"--unshare-cgroup": 0, "--unshare-cgroup-try": 0, "--disable-userns": 0,
	"--assert-userns-disabled": 0, "--clearenv": 0, "--new-session": 0,
	"--die-with-parent": 0, "--as-pid-1": 0, "--not-a-security-boundary": 0,

	"--args": 1, "--argv0": 1, "--userns": 1, "--userns2": 1, "--pidns": 1,
	"--uid": 1, "--gid": 1, "--hostname": 1, "--chdir": 1, "--unsetenv": 1,
	"--lock-file": 1, "--sync-fd": 1, "--remount-ro": 1, "--overlay-src": 1,
	"--tmp-overlay": 1, "--ro-overlay": 1, "--exec-label": 1, "--file-label": 1,
	"--proc": 1, "--dev": 1, "--tmpfs": 1, "--mqueue": 1, "--dir": 1,
	"--seccomp": 1, "--add-seccomp-fd": 1, "--block-fd": 1, "--userns-block-fd": 1,
	"--info-fd": 1, "--json-status-fd": 1, "--cap-add": 1, "--cap-drop": 1,
	"--perms": 1, "--size": 1,

	"--setenv": 2, "--bind": 2, "--bind-try": 2, "--dev-bind": 2, "--dev-bind-try": 2,
	"--ro-bind": 2, "--ro-bind-try": 2, "--bind-fd": 2, "--ro-bind-fd": 2,
	"--file": 2, "--bind-data": 2, "--ro-bind-data": 2, "--symlink": 2, "--chmod": 2,

	"--overlay": 3,
}

// refusedOptions are bwrap options the runtime never runs with, and why.
var refusedOptions = map[string]string{
	"--not-a-security-boundary": "it lets bwrap carry on when parts of the sandbox cannot be set up",
}

// IsShellName tells whether s is a shell identifier ([A-Za-z_][A-Za-z0-9_]*).
func IsShellName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// IsCleanAbs reports whether p is an absolute path in its clean form.
func IsCleanAbs(p string) bool { return strings.HasPrefix(p, "/") && filepath.Clean(p) == p }
