// Package bounded evaluates untrusted input (organisation Rego rules,
// custom CUE profiles) in a child process of bwpolicy itself with a time
// bound and a memory bound. Go cannot bound one goroutine's memory, and
// neither OPA's cancellation nor a context deadline interrupts a single
// builtin call (numbers.range(1, 1e9)) or a CUE evaluation, so the work
// runs in a re-executed bwpolicy: a watchdog in the child samples its
// resident memory and heap, and keeps its address space (RLIMIT_AS) at
// what is left of the memory bound, so that even one allocation cannot
// take it past the bound (aslimit.go); the child publishes the position
// it is at in a page shared with the parent, so a crossed bound names it
// even when the child dies inside an allocation (wherepage.go); the
// parent kills it at the time bound plus a grace period whatever it does. Trusted work (the
// embedded rules and profiles) never goes through here.
package bounded

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// Defaults of the bounds (the --eval-timeout and --eval-memory flags).
const (
	DefaultTime      = 5 * time.Second
	DefaultMemoryMiB = 256
)

// Limits are the bounds of one evaluation.
type Limits struct {
	// Time bounds each call (wall clock); zero means DefaultTime.
	Time time.Duration
	// MemoryMiB bounds the child's resident memory; zero means
	// DefaultMemoryMiB.
	MemoryMiB int64
	// Env, when set, passes the process environment to the child (an
	// organisation that allows opa.runtime()'s environment); otherwise
	// the child starts with an empty environment.
	Env bool
}

// orDefault is l with its zero fields set to the defaults.
func (l Limits) orDefault() Limits {
	if l.Time <= 0 {
		l.Time = DefaultTime
	}
	if l.MemoryMiB <= 0 {
		l.MemoryMiB = DefaultMemoryMiB
	}
	return l
}

// Bound is which bound an evaluation crossed.
type Bound int

// The bounds.
const (
	Time Bound = iota + 1
	Memory
	// Crash is a child that died without saying why (a signal, a
	// runtime fatal error other than running out of memory).
	Crash
)

// String names the bound in messages: "time", "memory" or "crash".
func (b Bound) String() string {
	switch b {
	case Time:
		return "time"
	case Memory:
		return "memory"
	}
	return "crash"
}

// Where is the position an evaluation was at: a file, and the line,
// column and name of the rule or field when they are known.
type Where struct {
	File      string
	Line, Col int
	// Name is the rule ("data.bwpolicy.custom.x.deny") or field.
	Name string
}

// Exceeded is the error of an evaluation that crossed a bound.
type Exceeded struct {
	Bound Bound
	// Limit says the bound's value ("5s", "512 MiB").
	Limit string
	// Where is where the child was, when it could say (Where.File
	// is "" otherwise).
	Where Where
	// Detail is what the child's runtime said when it died, if anything.
	Detail string
}

// Error says which bound the child crossed, where, and its limit.
func (e *Exceeded) Error() string {
	at := ""
	if e.Where.File != "" {
		at = fmt.Sprintf(" at %s:%d", e.Where.File, e.Where.Line)
		if e.Where.Name != "" {
			at += " (" + e.Where.Name + ")"
		}
	}
	switch e.Bound {
	case Time:
		return fmt.Sprintf("evaluation crossed the time bound (%s)%s", e.Limit, at)
	case Memory:
		return fmt.Sprintf("evaluation crossed the memory bound (%s)%s", e.Limit, at)
	}
	return fmt.Sprintf("evaluation process died%s: %s", at, e.Detail)
}

// Remote is an error the child's handler returned, carried to the parent
// as its message and, when the handler sent them, its encoded details.
type Remote struct {
	Message string
	Body    []byte
}

// Error is the handler's message.
func (e *Remote) Error() string { return e.Message }

// TooLarge is the error of ReadFile for a file over its bound.
type TooLarge struct {
	File string
	Max  int64
}

// Error names the file and its bound.
func (e *TooLarge) Error() string {
	return fmt.Sprintf("%s: larger than %d bytes; bwpolicy reads no more", e.File, e.Max)
}

// ReadFile reads a file of at most max bytes (an untrusted rule or
// profile): a larger one is a *TooLarge, read no further. It must be a
// regular file, opened and read without blocking (a named pipe, a device
// or a symbolic link to /proc/kmsg among a pull request's rules is an
// error, not a hang): see invocation.OpenRegular.
func ReadFile(file string, max int64) ([]byte, error) {
	f, err := invocation.OpenRegular(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, invocation.ReadError(file, err)
	}
	if int64(len(b)) > max {
		return nil, &TooLarge{File: file, Max: max}
	}
	return b, nil
}

// Budget bounds what a directory of untrusted files (organisation
// rules, custom profiles) costs the process that reads them: each file
// at most PerFile bytes, and all of them together at most Total bytes
// and Files files. Without it a directory of 300 rule files of 1 MiB
// each, each within its own bound, took 3.5 GiB and 104 s of the parent
// before the child refused them. Its zero value reads nothing.
type Budget struct {
	PerFile, Total int64
	Files          int
	used           int64
	read           int
}

// OverBudget is the error of Budget.ReadFile once the directory's
// files are over the budget's Total or Files.
type OverBudget struct {
	File    string
	Total   int64
	Files   int
	ByCount bool
}

// Error names the file at which the budget ran out and the bound.
func (e *OverBudget) Error() string {
	if e.ByCount {
		return fmt.Sprintf("%s: more than %d files; bwpolicy reads no more", e.File, e.Files)
	}
	return fmt.Sprintf("%s: the files together are larger than %d bytes; bwpolicy reads no more", e.File, e.Total)
}

// ReadFile reads file (ReadFile with the budget's PerFile) and counts it
// against the budget: past Files files, or Total bytes, it is an
// *OverBudget, read no further.
func (b *Budget) ReadFile(file string) ([]byte, error) {
	if b.read >= b.Files {
		return nil, &OverBudget{File: file, Total: b.Total, Files: b.Files, ByCount: true}
	}
	src, err := ReadFile(file, min(b.PerFile, b.Total-b.used))
	var big *TooLarge
	if errors.As(err, &big) && b.Total-b.used < b.PerFile {
		return nil, &OverBudget{File: file, Total: b.Total, Files: b.Files}
	}
	if err != nil {
		return nil, err
	}
	b.read++
	b.used += int64(len(src))
	return src, nil
}
