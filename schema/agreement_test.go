package schema

import (
	"encoding/json"
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"

	"github.com/bwpolicy/bwpolicy/diag"
)

type noPos struct{}

func (noPos) Pos([]any) diag.Pos    { return diag.Pos{} }
func (noPos) KeyPos([]any) diag.Pos { return diag.Pos{} }

// agreementCases are settings documents (as JSON) that both
// settings.schema.json and the CUE #Settings of sandbox.cue must judge
// the same way.
var agreementCases = []struct {
	doc   string
	valid bool
}{
	{`{}`, true},
	{`{"profile": "workspace", "memory_mb": 2048, "cpu_seconds": 0, "max_procs": 1}`, true},
	{`{"profile": "my-profile_2"}`, true},
	{`{"profile": "Bad"}`, false},
	{`{"profile": ""}`, false},
	{`{"profile": 3}`, false},
	{`{"memory_mb": -1}`, false},
	{`{"memory_mb": 1.5}`, false},
	{`{"memory_mb": "256"}`, false},
	{`{"cpu_seconds": 1073741825}`, false},
	{`{"max_procs": 1073741824}`, true},
	{`{"binds": []}`, true},
	{`{"home": {"layout": "denylist", "allow": [".mytool", "~/.config/foo", "go"]}}`, true},
	{`{"home": {"layout": "open"}}`, false},
	{`{"home": {"allow": ["/abs"]}}`, false},
	{`{"home": {"allow": ["~/../x"]}}`, false},
	{`{"home": {"allow": [".config/../.ssh"]}}`, false},
	{`{"home": {"allow": [""]}}`, false},
	{`{"home": {"allow": ["~"]}}`, false},
	{`{"home": {"mode": "x"}}`, false},
	{`{"binds": [{"src": "/a"}, {"src": "/b", "dest": "/c", "readonly": false}]}`, true},
	{`{"binds": [{"dest": "/c"}]}`, false},
	{`{"binds": [{"src": ""}]}`, false},
	{`{"binds": [{"src": "/a", "mode": "rw"}]}`, false},
	{`{"binds": [{"src": "/a", "readonly": "yes"}]}`, false},
	{`{"binds": {"src": "/a"}}`, false},
	{`{"cwd": "/x", "home_mode": "profile", "degraded_mode": "fail", "sandbox_dir": "/s"}`, true},
	{`{"sandbox_id": "task-1.a_b"}`, true},
	{`{"sandbox_id": "../x"}`, false},
	{`{"sandbox_id": ".hidden"}`, false},
	{`{"sandbox_id": "a/b"}`, false},
	{`{"cwd": ""}`, false},
	{`{"home_mode": "weird"}`, false},
	{`{"degraded_mode": "ignore"}`, false},
	{`{"hide": ["**/*.pem", "secrets/"]}`, true},
	{`{"hide": [""]}`, false},
	{`{"env": {"allow": ["GITHUB_TOKEN"], "strip": ["*_KEY"]}}`, true},
	{`{"env": {"allow": ["1BAD"]}}`, false},
	{`{"env": {"other": []}}`, false},
	{`{"seccomp": {"allow": ["ptrace"]}}`, true},
	{`{"seccomp": {"allow": ["PTRACE"]}}`, false},
	{`{"network": {"tcp_connect": [443, 80], "tcp_bind": [8080]}}`, true},
	{`{"network": {"tcp_connect": [0]}}`, false},
	{`{"network": {"tcp_connect": [65536]}}`, false},
	{`{"network": {"udp": false}}`, true},
	{`{"network": {"udp": "no"}}`, false},
	{`{"tmp_mb": 64}`, true},
	{`{"tmp_mb": 0}`, true},
	{`{"tmp_mb": -1}`, false},
	{`{"tmp_mb": 1.5}`, false},
	{`{"unknown": 1}`, false},
}

// TestSchemaAndCUEAgree proves settings.schema.json (for editors and the
// schema stage) and #Settings in sandbox.cue say the same thing.
func TestSchemaAndCUEAgree(t *testing.T) {
	ctx := cuecontext.New()
	sv := ctx.CompileBytes(SandboxCUE, cue.Filename("sandbox.cue"))
	if err := sv.Err(); err != nil {
		t.Fatal(err)
	}
	def := sv.LookupPath(cue.ParsePath("#Settings"))
	for _, c := range agreementCases {
		var m map[string]any
		if err := json.Unmarshal([]byte(c.doc), &m); err != nil {
			t.Fatalf("%s: %v", c.doc, err)
		}
		jsonOK := len(Validate(m, noPos{})) == 0
		v := ctx.CompileString(c.doc)
		cueOK := def.Unify(v).Validate(cue.Concrete(true)) == nil
		if jsonOK != c.valid || cueOK != c.valid {
			t.Errorf("%s: want valid=%v, JSON Schema says %v, CUE says %v", c.doc, c.valid, jsonOK, cueOK)
		}
	}
}
