package policy

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/internal/bounded"
)

// childKind is the kind of bounded child that evaluates organisation
// rules.
const childKind = "rego"

// The calls a rego child serves.
const (
	opLoad  = "load"  // loadCall → loaded, or the load's diagnostics
	opEval  = "eval"  // evalCall → []Violation: the organisation's decisions
	opTests = "tests" // testsCall → []TestResult
)

// loadCall is what a child compiles: the organisation modules and what
// they may reach.
type loadCall struct {
	Modules map[string]string
	Reach   Reach
}

// loaded is what a child says of the rules it loaded.
type loaded struct {
	// Deterministic: the compiled modules call no nondeterministic
	// builtin and no unknown function (deterministic), so that the
	// organisation's decisions are a function of the input alone.
	Deterministic bool
}

// testsCall is a `bwpolicy test` run.
type testsCall struct {
	Dirs []string
	Opt  TestOptions
}

func init() { bounded.Handle(childKind, serveChild) }

// childEngine is the engine a rego child has loaded.
var childEngine *Engine

// serveChild is a rego child's handler. Errors travel as diagnostics
// (diagsError), already positioned by ErrorDiags in the child.
func serveChild(op string, body []byte) ([]byte, error) {
	switch op {
	case opLoad:
		var c loadCall
		if err := gobDecode(body, &c); err != nil {
			return nil, err
		}
		eng, err := newLocal(c.Modules, c.Reach)
		if err != nil {
			return nil, remoteDiags(err)
		}
		eng.traced = true
		childEngine = eng
		return gobEncode(loaded{Deterministic: deterministic(eng.compiler.Modules)})
	case opEval:
		if childEngine == nil {
			return nil, errors.New("policy: evaluation before load")
		}
		var call evalCall
		if err := gobDecode(body, &call); err != nil {
			return nil, err
		}
		value, err := inputOf(call)
		if err != nil {
			return nil, err
		}
		vs, err := childEngine.evaluateValue(context.Background(), value)
		if err != nil {
			return nil, remoteDiags(err)
		}
		return gobEncode(vs)
	case opTests:
		var c testsCall
		if err := gobDecode(body, &c); err != nil {
			return nil, err
		}
		c.Opt.marker = true
		rs, err := runTestDirs(context.Background(), c.Dirs, c.Opt)
		if err != nil {
			return nil, remoteDiags(err)
		}
		return gobEncode(rs)
	}
	return nil, errors.New("policy: unknown call " + op)
}

// diagsError is an error that is already diagnostics (from a child).
type diagsError struct{ diags diag.List }

func (e *diagsError) Error() string { return e.diags.Error() }

// remoteDiags carries err's diagnostics to the parent.
func remoteDiags(err error) error {
	ds := ErrorDiags(err)
	b, encErr := gobEncode(ds)
	if encErr != nil {
		return err
	}
	return &bounded.Remote{Message: err.Error(), Body: b}
}

// fromChild turns an error of a child call into what ErrorDiags
// understands: diagnostics, or the crossed bound placed at fallback
// (the --policy directories) when the child could not say where it was.
func fromChild(err error, fallback string) error {
	var r *bounded.Remote
	if errors.As(err, &r) && r.Body != nil {
		var ds diag.List
		if gobDecode(r.Body, &ds) == nil {
			return &diagsError{ds}
		}
	}
	var ex *bounded.Exceeded
	if errors.As(err, &ex) && ex.Where.File == "" {
		c := *ex
		c.Where.File = fallback
		return &c
	}
	return err
}

// pool runs an engine's evaluations in bounded children, one call at a
// time per child, at most GOMAXPROCS of them.
type pool struct {
	load     []byte // the encoded loadCall every child starts with
	opt      Options
	fallback string // where a crossed bound is placed when the child cannot say
	// pure: the children's rules are deterministic (loaded), as the
	// first child said.
	pure  bool
	idle  chan *child
	slots chan struct{}
	mu    sync.Mutex
	all   []*child
}

// startRemote starts the first child of an engine over extra and loads
// the rules in it, so that a rule that does not compile is an error of
// LoadWith.
func startRemote(extra map[string]string, opt Options, fallback string) (*Engine, error) {
	load, err := gobEncode(loadCall{Modules: extra, Reach: opt.Reach})
	if err != nil {
		return nil, err
	}
	opt.Limits.Env = opt.Reach.Env
	n := runtime.GOMAXPROCS(0)
	p := &pool{load: load, opt: opt, fallback: fallback, idle: make(chan *child, n), slots: make(chan struct{}, n)}
	c, said, err := p.start()
	if err != nil {
		return nil, err
	}
	p.pure = said.Deterministic
	p.idle <- c
	return &Engine{remote: p}, nil
}

// start starts one child and loads the rules in it; it takes a slot.
func (p *pool) start() (*child, loaded, error) {
	var said loaded
	p.slots <- struct{}{}
	c, err := bounded.Start(childKind, p.opt.Limits)
	if err != nil {
		<-p.slots
		return nil, said, err
	}
	out, err := c.Call(opLoad, p.load)
	if err == nil {
		err = gobDecode(out, &said)
	}
	if err != nil {
		c.Close()
		<-p.slots
		return nil, said, fromChild(err, p.fallback)
	}
	ch := &child{Child: c, held: map[ast.Value]int{}}
	p.mu.Lock()
	p.all = append(p.all, ch)
	p.mu.Unlock()
	return ch, said, nil
}

// get returns an idle child, or a new one while there are free slots.
func (p *pool) get() (*child, error) {
	select {
	case c := <-p.idle:
		return c, nil
	default:
	}
	select {
	case c := <-p.idle:
		return c, nil
	case p.slots <- struct{}{}:
		<-p.slots
		c, _, err := p.start()
		return c, err
	}
}

// evalCall is one evaluation's input: its top-level fields, each either
// sent (JSON) or, when the child already holds it, named by the number
// it was sent under (the facts a facts.Cache shares between files are
// sent to each child once, not once per file).
type evalCall struct {
	Reset  bool // the child forgets every value it holds first
	Fields []evalField
}

type evalField struct {
	Key  string
	JSON []byte // the value, or nil for Ref
	Ref  int    // the number it is (or was) sent under; 0: not kept
}

// maxHeld bounds the values one child holds for its parent.
const maxHeld = 64

// child is a pool's child and the shared values it holds.
type child struct {
	*bounded.Child
	held map[ast.Value]int
	next int
}

// evaluate runs one evaluation of the organisation's decisions in a
// child. A child that crossed a bound is gone: its slot is freed for a
// new one.
func (p *pool) evaluate(value ast.Value) ([]Violation, error) {
	obj, ok := value.(ast.Object)
	if !ok {
		return nil, fmt.Errorf("policy: input is %T, not an object", value)
	}
	c, err := p.get()
	if err != nil {
		return nil, err
	}
	call := evalCall{}
	if len(c.held) >= maxHeld {
		clear(c.held)
		call.Reset = true
	}
	var fieldErr error
	obj.Foreach(func(k, v *ast.Term) {
		key, _ := k.Value.(ast.String)
		f := evalField{Key: string(key)}
		if isShared(v.Value) {
			if id, held := c.held[v.Value]; held {
				f.Ref = id
				call.Fields = append(call.Fields, f)
				return
			}
			c.next++
			c.held[v.Value], f.Ref = c.next, c.next
		}
		x, err := ast.JSON(v.Value)
		if err == nil {
			f.JSON, err = json.Marshal(x)
		}
		if err != nil && fieldErr == nil {
			fieldErr = err
		}
		call.Fields = append(call.Fields, f)
	})
	if fieldErr != nil {
		p.idle <- c
		return nil, fieldErr
	}
	body, err := gobEncode(call)
	if err != nil {
		p.idle <- c
		return nil, err
	}
	out, err := c.Call(opEval, body)
	var ex *bounded.Exceeded
	if errors.As(err, &ex) {
		c.Close()
		<-p.slots
	} else {
		p.idle <- c
	}
	if err != nil {
		return nil, fromChild(err, p.fallback)
	}
	var vs []Violation
	if err := gobDecode(out, &vs); err != nil {
		return nil, err
	}
	return vs, nil
}

// childHeld are the values a child holds for its parent, by number.
var childHeld = map[int]ast.Value{}

// inputOf is the input value of an evalCall, in the child.
func inputOf(call evalCall) (ast.Value, error) {
	if call.Reset {
		clear(childHeld)
	}
	obj := ast.NewObject()
	for _, f := range call.Fields {
		var v ast.Value
		if f.JSON == nil {
			held, ok := childHeld[f.Ref]
			if !ok {
				return nil, fmt.Errorf("policy: input field %s: value %d was never sent", f.Key, f.Ref)
			}
			v = held
		} else {
			x, err := jsonValue(f.JSON)
			if err != nil {
				return nil, err
			}
			v = x
			if f.Ref != 0 {
				childHeld[f.Ref] = v
			}
		}
		obj.Insert(ast.StringTerm(f.Key), ast.NewTerm(v))
	}
	return obj, nil
}

// Close ends the engine's children; an engine in process has none.
func (e *Engine) Close() {
	if e == nil || e.remote == nil {
		return
	}
	e.remote.mu.Lock()
	defer e.remote.mu.Unlock()
	for _, c := range e.remote.all {
		c.Close()
	}
	e.remote.all = nil
}

// ruleMarker is the tracer of a child's evaluation: it marks the
// organisation rule being entered (bounded.Mark), so that a crossed
// bound names it. Built-in rules are not marked: the last organisation
// rule entered is the one that called them.
type ruleMarker struct{ tests bool }

func (ruleMarker) Enabled() bool               { return true }
func (ruleMarker) Config() topdown.TraceConfig { return topdown.TraceConfig{} }
func (m ruleMarker) TraceEvent(ev topdown.Event) {
	if ev.Op != topdown.EnterOp {
		return
	}
	r, ok := ev.Node.(*ast.Rule)
	if !ok || r.Location == nil || strings.HasPrefix(r.Location.File, BuiltinPrefix) {
		return
	}
	w := &bounded.Where{File: r.Location.File, Line: r.Location.Row, Col: r.Location.Col}
	// A compiled rule's head ref is its whole path (data.pkg.rule); a
	// parsed one's is relative to its package.
	if ref := r.Ref().String(); strings.HasPrefix(ref, "data.") {
		w.Name = ref
	} else if r.Module != nil && r.Module.Package != nil {
		w.Name = r.Module.Package.Path.String() + "." + ref
	}
	bounded.Mark(w)
	if m.tests && strings.HasPrefix(string(r.Head.Name), "test_") {
		bounded.Restart() // the bound is per test
	}
}

func gobEncode(v any) ([]byte, error) {
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode(v)
	return b.Bytes(), err
}

func gobDecode(b []byte, v any) error { return gob.NewDecoder(bytes.NewReader(b)).Decode(v) }

// jsonValue is the value of a JSON document, as OPA reads JSON.
func jsonValue(b []byte) (ast.Value, error) {
	var generic any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&generic); err != nil {
		return nil, err
	}
	return ast.InterfaceToValue(generic)
}
