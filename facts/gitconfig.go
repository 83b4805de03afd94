package facts

import (
	"bufio"
	"bytes"
	"path"
	"strings"
)

// maxGitConfig bounds how much of a git configuration file is read.
const maxGitConfig = 256 << 10

// gitHooksPath returns the value of core.hooksPath in a git
// configuration file's content (the last one set), and whether it is set.
// It reads the subset of git's syntax a hooksPath line uses: sections
// (case-insensitive, "[core]" or "[core] key = value" on one line),
// comments (# and ;) outside quotes, double-quoted values with \" \\ \t
// \n escapes. Includes are not followed.
func gitHooksPath(content []byte) (string, bool) {
	section := ""
	value, set := "", false
	sc := bufio.NewScanner(bytes.NewReader(content))
	sc.Buffer(make([]byte, 0, 4096), maxGitConfig)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				continue
			}
			name := strings.TrimSpace(line[1:end])
			name, _, _ = strings.Cut(name, " ") // [section "subsection"]
			section = strings.ToLower(name)
			line = strings.TrimSpace(line[end+1:])
		}
		if section != "core" || line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		key, raw, hasValue := strings.Cut(line, "=")
		if !strings.EqualFold(strings.TrimSpace(key), "hookspath") || !hasValue {
			continue
		}
		value, set = gitValue(raw), true
	}
	return value, set
}

// gitValue decodes a configuration value: quotes removed, escapes
// resolved, a comment outside quotes dropped, outer blanks trimmed.
func gitValue(raw string) string {
	var b strings.Builder
	quoted := false
	raw = strings.TrimSpace(raw)
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '"':
			quoted = !quoted
		case c == '\\' && i+1 < len(raw):
			i++
			switch raw[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(raw[i])
			}
		case (c == '#' || c == ';') && !quoted:
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// hooksPathFor returns where git runs hooks from for the repository whose
// worktree is root, per the repository's own configuration, else the
// user's global one; "" when neither sets core.hooksPath. A relative
// value is relative to the worktree (hooks run there); "~/" is the home.
func (g *gatherer) hooksPathFor(root, home string) string {
	configs := []string{path.Join(root, ".git", "config"), path.Join(home, ".gitconfig"), path.Join(home, ".config", "git", "config")}
	for _, c := range configs {
		pc := g.path(c) // a dotfiles repository often links ~/.gitconfig
		if pc.Kind != "file" {
			continue
		}
		content, err := g.fs.ReadFile(pc.Real, maxGitConfig)
		if err != nil {
			continue
		}
		v, ok := gitHooksPath(content)
		if !ok {
			continue
		}
		switch {
		case v == "":
			return ""
		case strings.HasPrefix(v, "~/"):
			return path.Join(home, v[2:])
		case path.IsAbs(v):
			return path.Clean(v)
		default:
			return path.Join(root, v)
		}
	}
	return ""
}
