package report

// CLIExample is a bwpolicy command line and its exact output, the
// example of a rule that no golden compile case shows (the stages of
// check itself). docs/rules.md shows it; cmd/bwpolicy's TestRuleExamples
// runs it in a fresh directory with a fresh HOME and compares.
type CLIExample struct {
	ID string
	// Files are written first (slash-separated name → content); the
	// content "<fifo>" makes a named pipe.
	Files map[string]string
	// Args follow "bwpolicy".
	Args           []string
	Stdout, Stderr string
	Exit           int
}

// CLIExamples are the examples of the rules the golden cases do not
// show, in rule order.
var CLIExamples = []CLIExample{
	{ID: "input", Files: map[string]string{"pipe.yaml": "<fifo>"}, Args: []string{"check", "pipe.yaml"},
		Stdout: "pipe.yaml: error: is a named pipe (FIFO), not a settings file [input]\n1 file checked: 1 error, 0 warnings\n", Exit: 1},
	{ID: "cue", Files: map[string]string{"profiles/ci.cue": "name: \"ci\"\ncwd_writable: false\nhidden_home: {\n"},
		Args:   []string{"check", "--profiles", "profiles"},
		Stdout: "profiles/ci.cue:3:16: error: expected '}', found 'EOF' [cue]\n     3 | hidden_home: {\n       |               ^\n1 file checked: 1 error, 0 warnings\n", Exit: 1},
	{ID: "policy", Files: map[string]string{"s.yaml": "profile: workspace\n",
		"policy/bad.rego": "package bwpolicy.custom.limits\n\ndeny contains v if {\n\tv := {\"msg\": \"x\", \"path\": [memory_mb]}\n}\n"},
		Args:   []string{"check", "--policy", "policy", "s.yaml"},
		Stdout: "nothing was checked: the check itself failed (1 problem)\n",
		Stderr: "policy/bad.rego:4:2: error: rego_unsafe_var_error: var memory_mb is unsafe [policy]\n     4 | \tv := {\"msg\": \"x\", \"path\": [memory_mb]}\n       | \t^\n", Exit: 2},
	{ID: "suppression", Files: map[string]string{"s.yaml": "profile: workspace\nmemory_mb: 512 # bwpolicy:ignore R99 not a rule\n"},
		Args:   []string{"check", "s.yaml"},
		Stdout: "s.yaml:2:16: error: bwpolicy:ignore names the unknown rule ID \"R99\" [suppression]\n     2 | memory_mb: 512 # bwpolicy:ignore R99 not a rule\n       |                ^\n1 file checked: 1 error, 0 warnings\n", Exit: 1},
}
