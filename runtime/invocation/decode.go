package invocation

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
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

// DecodeFileToRun is DecodeFile for a runtime that is about to run the
// invocation: Warnings, which are for people, are checked as strictly
// as DecodeFile checks them (an invocation one rejects, the other
// rejects) but not kept: they are nil. In a fresh process every byte
// kept is paid in page faults on every command's path.
func DecodeFileToRun(f *os.File, path string) (*Invocation, error) {
	return decodeFile(f, path, true)
}

// ReadFileToRun is DecodeFileToRun that also returns the bytes read
// (the decoded strings share them: the caller must not change them).
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
		return nil, fmt.Errorf("cannot read invocation %s: %w", path, err)
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
// fastDecodeText); m.toRun drops Warnings (DecodeFileToRun). Each
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

// Validate checks an invocation's internal consistency: an absolute bwrap
// path, non-empty arguments made of options bwrap knows (each with its
// values), file descriptors numbered 3 or more, each listed once, each
// used exactly once by an option that fits its kind, and nothing the
// runtime could not supply. Decode calls it; callers that build an
// Invocation in memory should call it too.
func Validate(inv *Invocation) error {
	if inv.Bwrap.Path == "" {
		// What the compiler writes when it found no bwrap (S10): the
		// sandbox is unavailable, and nothing runs without it.
		return errors.New("bwrap.path is empty: it was compiled where no bwrap was found, so no command can run (never unsandboxed); " +
			InstallHint + ", then recompile with `bwpolicy compile`")
	}
	if !filepath.IsAbs(inv.Bwrap.Path) {
		return fmt.Errorf("bwrap.path %q is not absolute", inv.Bwrap.Path)
	}
	if len(inv.Bwrap.Args) == 0 {
		return errors.New("bwrap.args is empty")
	}
	for _, r := range inv.Bwrap.Requires {
		if _, ok := bwrapArity[r]; !ok {
			return fmt.Errorf("bwrap.requires: %q is not a bwrap option", r)
		}
	}

	kinds := map[int]string{}
	count := map[string]int{}
	for i, fd := range inv.FDs {
		if fd.Num < 3 || fd.Num > maxFD {
			return fmt.Errorf("fds[%d]: fd %d out of range (3..%d; 0-2 are the command's stdio)", i, fd.Num, maxFD)
		}
		if _, dup := kinds[fd.Num]; dup {
			return fmt.Errorf("fds[%d]: fd %d listed twice", i, fd.Num)
		}
		switch fd.Kind {
		case FDEmpty, FDSeccomp:
		case FDInfo, FDBlock, FDStatus:
			if count[fd.Kind] > 0 {
				return fmt.Errorf("fds[%d]: more than one %q fd", i, fd.Kind)
			}
		default:
			return fmt.Errorf("fds[%d]: unknown fd kind %q", i, fd.Kind)
		}
		kinds[fd.Num] = fd.Kind
		count[fd.Kind]++
	}
	if count[FDSeccomp] > 0 {
		if inv.Seccomp == nil || len(inv.Seccomp.Program) == 0 {
			return errors.New("a seccomp fd is listed but seccomp.program is empty")
		}
		if len(inv.Seccomp.Program)%8 != 0 {
			return fmt.Errorf("seccomp.program is %d bytes, not a whole number of 8-byte sock_filter records", len(inv.Seccomp.Program))
		}
	}

	used := map[int]string{}
	args := inv.Bwrap.Args
	for i := 0; i < len(args); i++ {
		opt := args[i]
		if opt == "--" {
			return fmt.Errorf("bwrap.args[%d]: \"--\" (the command goes after the arguments, not in them)", i)
		}
		if why, bad := refusedOptions[opt]; bad {
			return fmt.Errorf("bwrap.args[%d]: %s is refused: %s", i, opt, why)
		}
		n, ok := bwrapArity[opt]
		if !ok {
			if strings.HasPrefix(opt, "-") {
				return fmt.Errorf("bwrap.args[%d]: unknown bwrap option %q", i, opt)
			}
			return fmt.Errorf("bwrap.args[%d]: %q is not a bwrap option (a value without its option?)", i, opt)
		}
		if i+n >= len(args) {
			return fmt.Errorf("bwrap.args[%d]: %s needs %d value(s), the arguments end", i, opt, n)
		}
		if fkinds, isFD := fdOptions[opt]; isFD {
			val := args[i+1]
			num, err := strconv.Atoi(val)
			if err != nil {
				return fmt.Errorf("bwrap.args[%d]: %s %q: not a file descriptor number", i, opt, val)
			}
			kind, listed := kinds[num]
			if !listed {
				return fmt.Errorf("bwrap.args[%d]: %s %d: fd %d is not listed in fds", i, opt, num, num)
			}
			if prev, twice := used[num]; twice {
				return fmt.Errorf("bwrap.args[%d]: fd %d is used by both %s and %s (bwrap consumes an fd per use)", i, num, prev, opt)
			}
			fits := false
			for _, k := range fkinds {
				fits = fits || k == kind
			}
			if !fits {
				if len(fkinds) == 0 {
					return fmt.Errorf("bwrap.args[%d]: %s is not supported by the runtime (it has no fd kind to supply)", i, opt)
				}
				return fmt.Errorf("bwrap.args[%d]: %s %d: fd %d is of kind %q, %s needs %q", i, opt, num, num, kind, opt, strings.Join(fkinds, " or "))
			}
			used[num] = opt
		}
		i += n
	}
	for _, fd := range inv.FDs {
		if _, ok := used[fd.Num]; !ok {
			return fmt.Errorf("fd %d (%s) is listed in fds but no bwrap argument uses it", fd.Num, fd.Kind)
		}
	}
	if (inv.Rlimits.AsBytes != 0 || inv.Rlimits.CPUSeconds != 0 || inv.Rlimits.NProc != 0) &&
		(count[FDInfo] == 0 || count[FDBlock] == 0) {
		return errors.New("rlimits are set but the invocation has no info and block fds: the runtime applies the limits to the sandbox's first process while bwrap waits on --block-fd")
	}

	for i, p := range inv.Preconditions {
		if !filepath.IsAbs(p.Path) {
			return fmt.Errorf("preconditions[%d]: path %q is not absolute", i, p.Path)
		}
		if p.Names != nil {
			if err := validateNames(i, p); err != nil {
				return err
			}
		}
		switch p.Kind {
		case KindAbsent, KindFile, KindDir, KindSocket, KindOther, KindDenied:
			if p.Target != "" {
				return fmt.Errorf("preconditions[%d] (%s): a target is only meaningful for kind %q", i, p.Path, KindSymlink)
			}
		case KindSymlink:
			if p.Target == "" {
				return fmt.Errorf("preconditions[%d] (%s): symlink without a target", i, p.Path)
			}
		default:
			return fmt.Errorf("preconditions[%d] (%s): unknown kind %q", i, p.Path, p.Kind)
		}
		for _, pat := range p.Match {
			if _, err := path.Match(pat, ""); err != nil || strings.Contains(pat, "/") {
				return fmt.Errorf("preconditions[%d] (%s): match pattern %q is not a one-name path.Match pattern", i, p.Path, pat)
			}
		}
	}

	for _, pat := range inv.Env.UnsetPatterns {
		if _, err := path.Match(pat, ""); err != nil {
			return fmt.Errorf("env.unset_patterns: %q: %v", pat, err)
		}
	}
	for _, name := range inv.Env.UnsetAfterRC {
		if !IsShellName(name) {
			return fmt.Errorf("env.unset_after_rc: %q is not a shell variable name", name)
		}
	}
	for name := range inv.Env.Set {
		if name == "" || strings.ContainsAny(name, "=\x00") {
			return fmt.Errorf("env.set: invalid variable name %q", name)
		}
	}
	if inv.Landlock != nil {
		for _, p := range append(append([]uint16(nil), inv.Landlock.TCPConnect...), inv.Landlock.TCPBind...) {
			if p == 0 {
				return errors.New("landlock: port 0 in a port list")
			}
		}
	}
	if inv.Expose != nil {
		for _, r := range inv.Expose.Roots {
			if !IsCleanAbs(r) || r == "/" {
				return fmt.Errorf("expose.roots: %q is not an absolute, clean directory below /", r)
			}
		}
	}
	return validateExplain(inv)
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
