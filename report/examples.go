package report

// CLIExample is a bwpolicy command line and its exact output, the
// example of a rule that no golden compile case shows (verify, the
// stages of check itself, the command line, an internal failure). docs/rules.md shows it; cmd/bwpolicy's TestRuleExamples
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
	// Edit, when set, writes one more file: a file of the repository
	// changed by one textual replacement (a hand edit).
	Edit *Edit
	// Fault, when set, is how the run is broken on purpose, for a rule
	// that no input can provoke: FaultHostWithoutFS runs check
	// in-process on a host model without a file system.
	Fault string
}

// Edit derives an example's file from a file of the repository.
type Edit struct {
	// File is the name written; From the repository file it copies
	// (slash-separated, relative to the repository's root).
	File, From string
	// Old is replaced by New, and must occur in From exactly once.
	Old, New string
	// Why says what the edit does, for the page.
	Why string
}

// FaultHostWithoutFS is the Fault of running check in-process with a
// host model that has no file system: compiling panics, and check
// reports an internal failure.
const FaultHostWithoutFS = "host-without-file-system"

// CLIExamples are the examples of the rules the golden cases do not
// show, in rule order.
var CLIExamples = []CLIExample{
	{ID: "H6", Edit: &Edit{File: "inv.json", From: "golden/profile_workspace_denylist.json",
		Old: "      \"--remount-ro\",\"/home/u/.ssh\",\n",
		New: "      \"--ro-bind\",\"/home/u/.ssh\",\"/home/u/.ssh\",\n      \"--remount-ro\",\"/home/u/.ssh\",\n",
		Why: "a hand edit that binds the host's ~/.ssh back over its mask"},
		Args: []string{"verify", "--host=false", "inv.json"},
		Stdout: "hidden-masked: /home/u/.ssh: listed hidden, but no tmpfs or empty file is mounted there: it shows --ro-bind /home/u/.ssh /home/u/.ssh (args[87], ?)\n" +
			"hidden-masked: /home/u/.ssh: host path /home/u/.ssh (S5) is visible through --ro-bind /home/u/.ssh /home/u/.ssh (args[87], ?): no mask is mounted on it\n" +
			"covered-protection: /home/u/.ssh: --ro-bind /home/u/.ssh /home/u/.ssh (args[87], ?) comes after the mask --size 16384 --tmpfs /home/u/.ssh (args[66], S5) and covers it\n",
		Stderr: "bwpolicy verify: note: the runtime refuses to run this invocation (explain covers 101 of the 104 bwrap arguments: every argument must be explained (recompile)); verifying its sandbox anyway\n" +
			"bwpolicy verify: inv.json: 3 violation(s)\n", Exit: 1},
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
	{ID: "usage", Args: []string{"compile", "--sandbox-id", "../x"},
		Stderr: "command line: --sandbox-id: error: --sandbox-id \"../x\": want 1-64 letters, digits, '.', '_' or '-', not starting with '.', '_' or '-' [usage]\n", Exit: 2},
	{ID: "internal", Files: map[string]string{"s.yaml": "profile: workspace\n"}, Fault: FaultHostWithoutFS,
		Args:   []string{"check", "s.yaml"},
		Stdout: "1 file checked: 0 errors, 0 warnings; the check itself failed (1 problem)\n",
		Stderr: "s.yaml: error: internal error: runtime error: invalid memory address or nil pointer dereference [internal]\n", Exit: 2},
}
