package policy

import (
	"os"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

// Reach is what organisation rules may reach outside their input.
type Reach struct {
	// Net allows the builtins that reach the network (http.send,
	// net.lookup_ip_addr, and JSON Schema checks, which follow remote
	// $ref URLs): --policy-net.
	Net bool
	// Env allows opa.runtime() and fills its "env" with the process
	// environment: --policy-env.
	Env bool
}

// reachBuiltin is a builtin organisation rules get only when allowed.
type reachBuiltin struct {
	name string
	net  bool   // Reach.Net allows it; else Reach.Env
	why  string // what it would reach
}

// reachBuiltins are the builtins left out of the capabilities of
// organisation rules by default. TestNondeterministicBuiltinsAreJudged
// keeps the list complete: every builtin OPA marks nondeterministic is
// here or judged harmless in harmlessNondeterministic.
var reachBuiltins = []reachBuiltin{
	{"http.send", true, "sends HTTP requests"},
	{"net.lookup_ip_addr", true, "sends DNS queries"},
	{"json.match_schema", true, "fetches a schema's remote $ref"},
	{"json.verify_schema", true, "fetches a schema's remote $ref"},
	{"opa.runtime", false, "reads the process environment"},
}

// harmlessNondeterministic are the builtins OPA marks nondeterministic
// that reach nothing outside the evaluation (time, randomness, keys
// given as arguments).
var harmlessNondeterministic = map[string]bool{
	"time.now_ns": true, "rand.intn": true, "uuid.rfc4122": true, "io.jwt.encode_sign": true,
	"io.jwt.encode_sign_raw": true, "io.jwt.decode_verify": true, "rego.metadata.rule": true,
	"io.jwt.verify_hs512": true, "type_name": true,
}

// flagFor names the flag that allows b.
func (b reachBuiltin) flagFor() string {
	if b.net {
		return "--policy-net"
	}
	return "--policy-env"
}

func (r Reach) allows(b reachBuiltin) bool { return (b.net && r.Net) || (!b.net && r.Env) }

// capabilities are OPA's capabilities less the builtins r does not
// allow.
func (r Reach) capabilities() *ast.Capabilities {
	caps := ast.CapabilitiesForThisVersion()
	denied := map[string]bool{}
	for _, b := range reachBuiltins {
		if !r.allows(b) {
			denied[b.name] = true
		}
	}
	kept := caps.Builtins[:0]
	for _, b := range caps.Builtins {
		if !denied[b.Name] {
			kept = append(kept, b)
		}
	}
	caps.Builtins = kept
	return caps
}

// regoOptions are the evaluation options r adds: the capabilities and,
// with Env, a runtime whose env is the process environment.
func (r Reach) regoOptions() []func(*rego.Rego) {
	opts := []func(*rego.Rego){rego.Capabilities(r.capabilities())}
	if r.Env {
		env := ast.NewObject()
		for _, kv := range os.Environ() {
			k, v, _ := strings.Cut(kv, "=")
			env.Insert(ast.StringTerm(k), ast.StringTerm(v))
		}
		opts = append(opts, rego.Runtime(ast.ObjectTerm(ast.Item(ast.StringTerm("env"), ast.NewTerm(env)))))
	}
	return opts
}

// checkReach refuses every reference in the organisation modules to a
// builtin r does not allow, at its position, saying which flag allows
// it (OPA alone would only say "undefined function").
func (r Reach) checkReach(mods map[string]string) error {
	var errs ast.Errors
	names := make([]string, 0, len(mods))
	for n := range mods {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		m, err := ast.ParseModule(n, mods[n])
		if err != nil || m == nil {
			continue // the compile reports it
		}
		ast.WalkRefs(m, func(ref ast.Ref) bool {
			s := ref.String()
			for _, b := range reachBuiltins {
				if s == b.name && !r.allows(b) {
					errs = append(errs, ast.NewError("bwpolicy_reach_error", ref[0].Location,
						"%s %s, which organisation rules may not do by default (no network, no process environment: a linter of other people's files must not send the CI's secrets anywhere); %s allows it",
						b.name, b.why, b.flagFor()))
				}
			}
			return false
		})
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}
