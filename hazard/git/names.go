package git

import (
	"bufio"
	"bytes"
	"strings"
)

// HookNames are the hooks git and its bundled commands run
// (githooks(5)): an executable of such a name in a directory git takes
// as its hooks directory runs on the host.
var HookNames = []string{
	"applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit",
	"pre-merge-commit", "prepare-commit-msg", "commit-msg", "post-commit",
	"pre-rebase", "post-checkout", "post-merge", "pre-push", "pre-receive",
	"update", "proc-receive", "post-receive", "post-update",
	"reference-transaction", "push-to-checkout", "pre-auto-gc",
	"post-rewrite", "sendemail-validate", "fsmonitor-watchman",
	"p4-changelist", "p4-prepare-changelist", "p4-post-changelist",
	"p4-pre-submit", "post-index-change",
}

// TodoLists are the directories, relative to a git directory, of a
// rebase or sequence in progress and their to-do lists, whose
// "exec" lines git runs when the user continues (git rebase --continue,
// git cherry-pick --continue, git revert --continue).
var TodoLists = [][2]string{{"rebase-merge", "git-rebase-todo"}, {"sequencer", "todo"}}

// Strategies are git's own merge strategies.
var Strategies = []string{"ort", "recursive", "resolve", "octopus", "ours", "subtree"}

// TodoExec reports whether a to-do list holds a line git would run:
// "exec" or "x" as its first word (git's parse_insn_line accepts either,
// after leading blanks, in any list it reads).
func TodoExec(b []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), len(b)+1)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 0 && (f[0] == "exec" || f[0] == "x") {
			return true
		}
	}
	return false
}
