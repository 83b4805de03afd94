package facts

import (
	"fmt"
	"path"
	"strings"

	"github.com/bwpolicy/bwpolicy/hazard/secrets"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// ShellStartupFiles are the shell start-up files of the home directory
// that rcSecrets reads (H7): the home layout shows them, and the shell a
// command runs sources them, so a secret written in one reaches both the
// command's environment and its `cat`.
var ShellStartupFiles = []string{
	".profile", ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bash_aliases",
	".zshrc", ".zshenv", ".zprofile", ".zlogin", ".kshrc", ".mkshrc", ".config/fish/config.fish",
}

// maxStartupFile bounds the bytes of one start-up file read.
const maxStartupFile = 1 << 20

// rcSecrets hides each shell start-up file that holds a secret (H7): a
// line that assigns a variable whose name looks like a secret
// (secrets.SecretName) a literal value, or any line whose text looks
// like a credential (secrets.SecretValue), comments included (they are
// as readable). H5 filters the environment bwrun is given, not what the
// rc files export afterwards, and the file itself is readable. The file
// becomes an empty read-only file, so the rest of its settings is lost
// in the sandbox: each note says which file and line (never the value)
// and how to keep the secret out of it.
func (g *gatherer) rcSecrets(h *Host, f *Facts) (out []Hidden, notes []string) {
	for _, name := range ShellStartupFiles {
		p := path.Join(h.Home, name)
		if alreadyUnreachable(p, f) {
			continue
		}
		data, err := g.fs.ReadFile(p, maxStartupFile)
		if err != nil {
			continue
		}
		line, what := startupSecret(string(data))
		if line == 0 {
			continue
		}
		x := g.hidden(p, SourceStartupSecret)
		if x.Kind != invocation.KindFile || alreadyUnreachable(x.Path, f) {
			continue
		}
		out = append(out, x)
		notes = append(notes, fmt.Sprintf("~/%s line %d holds %s: the file is hidden (empty) in the sandbox, with the rest of its settings; move the secret to a file the sandbox does not show (~/.config/secrets.sh, sourced with `[ -r FILE ] && . FILE`) and recompile", name, line, what))
	}
	return out, notes
}

// startupSecret returns the first line (1-based) of a shell start-up
// file that holds a secret, and what it holds; 0 when none does.
func startupSecret(text string) (int, string) {
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimLeft(line, " \t#")
		if what, ok := secrets.SecretValue(line); ok {
			return i + 1, what
		}
		if name, ok := assignedSecret(line); ok {
			return i + 1, "a value for " + name
		}
	}
	return 0, ""
}

// assignedSecret: line assigns a literal value (not a reference to
// another variable or a command's output) to a variable whose name looks
// like a secret (not a credential variable of secrets.CredentialVars:
// those name a path, which H7 hides wherever it points): NAME=VALUE after export, declare/typeset -x, or fish's
// `set -gx NAME VALUE` and csh's `setenv NAME VALUE`.
func assignedSecret(line string) (string, bool) {
	for _, p := range []string{"export ", "declare -x ", "typeset -x ", "readonly ", "local "} {
		line = strings.TrimPrefix(line, p)
	}
	var name, value string
	if rest, ok := strings.CutPrefix(line, "set -gx "); ok {
		name, value, _ = strings.Cut(strings.TrimSpace(rest), " ")
	} else if rest, ok := strings.CutPrefix(line, "set -x "); ok {
		name, value, _ = strings.Cut(strings.TrimSpace(rest), " ")
	} else if rest, ok := strings.CutPrefix(line, "setenv "); ok {
		name, value, _ = strings.Cut(strings.TrimSpace(rest), " ")
	} else if n, v, ok := strings.Cut(line, "="); ok {
		name, value = n, v
	}
	if name == "" || strings.IndexFunc(name, func(r rune) bool {
		return !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) >= 0 {
		return "", false
	}
	value = strings.Trim(strings.TrimSpace(value), `"'`)
	if value == "" || strings.ContainsAny(value[:1], "$`") || !secrets.SecretName(name) || credentialVarNamed(name) {
		return "", false
	}
	return name, true
}

// credentialVarNamed: name is one of secrets.CredentialVars (exactly).
func credentialVarNamed(name string) bool {
	for _, cv := range secrets.CredentialVars {
		if cv.Name == name {
			return true
		}
	}
	return false
}
