package secrets

import (
	"path"
	"slices"
	"strings"
)

// This file reads a line as shell words and finds the credentials people
// put on command lines (the rules RuleAssign to RuleCredentialStore): a
// value assigned to a secret-named variable, the password options of
// well-known commands, user:password, tools' `config set`. The words are
// cut as the shell would (quotes removed, $(…) and `…` kept whole), in
// one pass, without expanding anything.

// Bounds of the word rules: the words of one line looked at, and how
// deep a value is read as a command line in turn (an alias's command, a
// variable's value that holds options).
const (
	maxWords = 512
	maxDepth = 2
)

// commands cuts line into commands (at ;, |, &, newlines, parentheses
// and braces outside quotes) of words (at blanks), removing quotes and
// backslashes; $(…), ${…} and `…` stay whole inside their word.
func commands(line string) [][]string {
	// The words of every command share one array (all; a command is
	// all[cmd:], capped when it is handed out, so that appending to it
	// copies), and a rewritten word is built in one buffer reused for
	// each: a line costs a few allocations, not one per word.
	out := make([][]string, 0, 2)
	all := make([]string, 0, min(strings.Count(line, " ")+2, maxWords+1))
	cmd := 0
	var buf [128]byte
	w := buf[:0]
	start, raw := -1, true // the word so far is line[start:i], unless raw is false (then w holds it)
	n := 0
	endWord := func(i int) {
		if start >= 0 && n < maxWords {
			if raw {
				all = append(all, line[start:i])
			} else {
				all = append(all, string(w))
			}
			n++
		}
		w = w[:0]
		start, raw = -1, true
	}
	cooked := func(i int) { // the word needs rewriting from line[i] on
		if start < 0 {
			start = i
		}
		if raw {
			w = append(w, line[start:i]...)
			raw = false
		}
	}
	endCmd := func(i int) {
		endWord(i)
		if len(all) > cmd {
			out = append(out, all[cmd:len(all):len(all)])
		}
		cmd = len(all)
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\'':
			cooked(i)
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				j = len(line) - i - 1
			}
			w = append(w, line[i+1:i+1+j]...)
			i += j + 1
		case c == '"':
			cooked(i)
			j := i + 1
			for j < len(line) && line[j] != '"' {
				if line[j] == '\\' && j+1 < len(line) {
					j++
				}
				j++
			}
			w = append(w, strings.ReplaceAll(line[i+1:min(j, len(line))], `\"`, `"`)...)
			i = j
		case c == '\\' && i+1 < len(line):
			cooked(i)
			w = append(w, line[i+1])
			i++
		case c == '$' && i+1 < len(line) && (line[i+1] == '\'' || line[i+1] == '"'):
			cooked(i) // $'…' (ANSI-C) and $"…" (locale) quote a literal: the '$' goes
		case c == '$' && i+1 < len(line) && (line[i+1] == '(' || line[i+1] == '{'), c == '`':
			j := closing(line, i)
			if start < 0 {
				start = i
			}
			if !raw {
				w = append(w, line[i:j]...)
			}
			i = j - 1
		case c == ' ' || c == '\t' || c == '\r':
			endWord(i)
		case strings.IndexByte(";|&\n(){}", c) >= 0:
			endCmd(i)
			if c == '|' && (i+1 == len(line) || line[i+1] != '|') && (i == 0 || line[i-1] != '|') {
				all = append(all, pipeMark) // the next command reads this one's output
			}
		default:
			if start < 0 {
				start = i
			}
			if !raw {
				w = append(w, c)
			}
		}
	}
	endCmd(len(line))
	return out
}

// pipeMark is the first word commands gives a command that reads the
// output of the one before it (after '|').
const pipeMark = "|"

// closing returns the index just past the $(…), ${…} or `…` that starts
// at line[i] (the end of line when it is not closed).
func closing(line string, i int) int {
	if line[i] == '`' {
		if j := strings.IndexByte(line[i+1:], '`'); j >= 0 {
			return i + j + 2
		}
		return len(line)
	}
	open, shut := line[i+1], byte(')')
	if open == '{' {
		shut = '}'
	}
	depth := 0
	for j := i + 1; j < len(line); j++ {
		switch line[j] {
		case open:
			depth++
		case shut:
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(line)
}

// findWords applies the word rules to each command of line.
func findWords(line string, depth int, emit func(Finding) bool) bool {
	if !wordRuleCandidate(line) {
		return true
	}
	var prev []string
	for _, words := range commands(line) {
		piped := words[0] == pipeMark
		if piped {
			words = words[1:]
		}
		if (piped && echoesLiteral(prev) || hereString(words)) && readsCredential(words) &&
			!emit(Finding{Rule: RuleStdinPassword, What: RuleStdinPassword.String()}) {
			return false
		}
		if p := stdinFile(words, piped, prev); p != "" && readsCredential(words) &&
			!emit(Finding{Rule: RuleSecretFile, What: RuleSecretFile.String(), Path: p}) {
			return false
		}
		if !findCommand(words, depth, emit) {
			return false
		}
		prev = words
	}
	return true
}

// echoesLiteral: words is echo or printf of a literal (the last word not
// a reference, not an option), or cat of a here-string (a here-document
// piped on: cat <<EOF | docker login --password-stdin).
func echoesLiteral(words []string) bool {
	return len(words) >= 2 && ((words[0] == "echo" || words[0] == "printf") && literal(words[len(words)-1]) ||
		words[0] == "cat" && hereString(words))
}

// stdinFile returns the file a command's standard input is read from:
// a redirection among words (< FILE, <FILE, 0< FILE), or the file the
// command piped into it prints (fileRead of prev: cat FILE, head -1
// FILE, tr -d '\n' < FILE …); "" otherwise.
func stdinFile(words []string, piped bool, prev []string) string {
	if p := redirectIn(words); p != "" {
		return p
	}
	if piped {
		return fileRead(prev)
	}
	return ""
}

// fedFile returns FILE when v is a command substitution whose output is
// a file's content or part of it ($(cat FILE), $(< FILE), `cat FILE`,
// $(head -1 FILE), $(tr -d '\n' < FILE): fileRead); "" otherwise.
func fedFile(v string) string {
	inner, ok := substitution(v)
	if !ok {
		return ""
	}
	return fileRead(commandWords(inner))
}

// commandWords is inner's words as commands cuts them (quotes removed),
// those of its first command.
func commandWords(inner string) []string {
	if cs := commands(inner); len(cs) > 0 {
		return cs[0]
	}
	return nil
}

// fileReaders print a file named as their last operand, or a part of it.
var fileReaders = []string{"cat", "head", "tail", "base64", "sed", "awk", "jq", "yq", "grep", "cut", "gpg", "sops"}

// fileRead returns the file the command words prints (or part of it):
// its standard input's redirection (redirectIn), else the last operand
// of a fileReaders command (options, -- and output redirections
// skipped); "" otherwise.
func fileRead(words []string) string {
	if p := redirectIn(words); p != "" {
		return p
	}
	if len(words) < 2 || !slices.Contains(fileReaders, words[0]) {
		return ""
	}
	last, operands := "", false
	for i := 1; i < len(words); i++ {
		w := words[i]
		switch {
		case strings.HasPrefix(w, "<<"):
			return "" // a here-string or here-document: a literal, not a file
		case !operands && w == "--":
			operands = true
		case redirectOut(w):
			if strings.HasSuffix(w, ">") {
				i++ // the target is the next word
			}
		case !operands && strings.HasPrefix(w, "-"):
		default:
			last = w
		}
	}
	if !fileWord(last) {
		return ""
	}
	return last
}

// redirectIn returns the file words redirect standard input from (<
// FILE, <FILE, 0< FILE, 0<FILE; not a here-document, here-string or
// process substitution); "" otherwise.
func redirectIn(words []string) string {
	for i, w := range words {
		w = strings.TrimPrefix(w, "0")
		switch {
		case w == "<" && i+1 < len(words) && fileWord(words[i+1]):
			return words[i+1]
		case len(w) > 1 && w[0] == '<' && w[1] != '<' && w[1] != '(' && fileWord(w[1:]):
			return w[1:]
		}
	}
	return ""
}

// redirectOut: w is an output redirection (>F, 2>F, 2>, >>, &>F).
func redirectOut(w string) bool {
	w = strings.TrimLeft(w, "0123456789&")
	return strings.HasPrefix(w, ">")
}

// fileWord: w names a file as a shell text writes it: a literal, or a
// path under ~, $HOME or ${HOME} (what facts resolves).
func fileWord(w string) bool {
	return w != "" && (literal(w) || filePath(w))
}

// passwordFileArg returns the file a password option reads its value
// from ($(cat FILE) where a literal would be the password: mysql
// -p"$(cat F)", sshpass -p "$(< F)", docker login -p, --password=$(cat
// F)); "" otherwise. The option rules are asked with a stand-in literal.
func passwordFileArg(cmd, a, next string, login bool) string {
	if p := fedFile(next); p != "" && (commandPassword(cmd, a, "x") || login && a == "-p" ||
		strings.HasPrefix(a, "--") && !strings.Contains(a, "=") && passwordOption(a[2:])) {
		return p
	}
	if len(a) > 2 && a[0] == '-' && a[1] != '-' {
		if p := fedFile(a[2:]); p != "" && (a[1] == 'p' && (mysqlFamily(cmd) || login) || commandPassword(cmd, a[:2]+"x", "")) {
			return p
		}
	}
	if name, val, ok := strings.Cut(a, "="); ok && strings.HasPrefix(name, "--") && fedFile(val) != "" && passwordOption(name[2:]) {
		return fedFile(val)
	}
	return ""
}

// hereString: words feed the command a literal on its standard input
// (<<< WORD, <<<WORD).
func hereString(words []string) bool {
	for i, w := range words {
		if rest, ok := strings.CutPrefix(w, "<<<"); ok {
			if rest == "" && i+1 < len(words) {
				rest = words[i+1]
			}
			return literal(rest)
		}
	}
	return false
}

// readsCredential: the command reads a password or token from its
// standard input: an option --password-stdin, --pass-stdin,
// --token-stdin, --with-token (docker/podman/helm … login, gh auth
// login), sudo -S, passwd --stdin, chpasswd, vault login -, read into a
// variable named like a secret.
func readsCredential(words []string) bool {
	i := 0
	for i < len(words) && isAssignment(words[i]) {
		i++
	}
	if i >= len(words) {
		return false
	}
	cmd, args := path.Base(words[i]), words[i+1:]
	for _, a := range args {
		switch a {
		case "--password-stdin", "--pass-stdin", "--token-stdin", "--with-token", "--secret-stdin":
			return true
		}
	}
	switch cmd {
	case "sudo":
		for _, a := range args {
			if a == "--stdin" || len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a, 'S') > 0 {
				return true
			}
			if !strings.HasPrefix(a, "-") {
				break
			}
		}
	case "chpasswd":
		return true
	case "op": // 1Password's op signin reads the account password
		return contains(args, "signin")
	case "passwd":
		return contains(args, "--stdin")
	case "vault", "bao":
		return contains(args, "login") && contains(args, "-")
	case "read":
		for _, a := range args {
			if !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "<<<") && SecretName(a) {
				return true
			}
		}
	}
	return false
}

// isAssignment: w is NAME=value.
func isAssignment(w string) bool {
	_, _, ok := assignment(w)
	return ok
}

// wordRuleCandidate: line has what every word rule needs: an option (a
// word starting with '-'), an assignment (NAME= without a blank before
// '='), or a set command (fish's set, csh's setenv, config set). Lines
// of configuration files (key = value) have none: the cheap test spares
// cutting them into words.
func wordRuleCandidate(line string) bool {
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '-':
			if i == 0 || strings.IndexByte(" \t'\"=", line[i-1]) >= 0 {
				return true
			}
		case '=':
			if i > 0 && (isAlnum(line[i-1]) || line[i-1] == '_' || line[i-1] == '+') {
				return true
			}
		}
	}
	for _, w := range []string{"set", "<<<", "login", "sql", "alias", "abbr", "exp", "imp", "rman", "config"} {
		if strings.Contains(line, w) {
			return true
		}
	}
	return false
}

// commandPrefixes run the command that follows them (their own options,
// words starting with '-', are passed over).
var commandPrefixes = map[string]bool{"export": true, "declare": true, "typeset": true, "readonly": true,
	"local": true, "env": true, "sudo": true, "exec": true, "command": true, "nohup": true, "time": true, "builtin": true}

// findCommand applies the word rules to one command's words; it returns
// false when emit asked to stop.
func findCommand(words []string, depth int, emit func(Finding) bool) bool {
	i := 0
	for i < len(words) {
		if name, val, ok := assignment(words[i]); ok {
			if !assign(name, val, depth, emit) {
				return false
			}
			i++
			continue
		}
		if !commandPrefixes[words[i]] {
			break
		}
		for i++; i < len(words) && strings.HasPrefix(words[i], "-"); i++ {
		}
	}
	if i >= len(words) {
		return true
	}
	cmd, args := path.Base(words[i]), words[i+1:]
	if strings.HasPrefix(words[i], "-") { // a value of options alone (CURL_OPTS="-u a:b")
		cmd, args = "", words[i:]
	}
	switch cmd {
	case "alias", "abbr":
		plain := args[:0:0] // fish: alias NAME 'COMMAND', abbr -a NAME 'COMMAND'
		for _, a := range args {
			if len(plain) > 0 || strings.HasPrefix(a, "-") {
				if len(plain) > 0 {
					plain = append(plain, a)
				}
				continue
			}
			if _, val, ok := strings.Cut(a, "="); ok && depth < maxDepth {
				if !findValue(val, depth+1, emit) {
					return false
				}
			} else if !strings.HasPrefix(a, "-") {
				plain = append(plain, a)
			}
		}
		if len(plain) >= 2 && depth < maxDepth {
			return findValue(strings.Join(plain[1:], " "), depth+1, emit)
		}
		return true
	case "printf": // printf -v NAME VALUE
		if len(args) >= 3 && args[0] == "-v" && isName(args[1]) {
			return assign(args[1], args[len(args)-1], depth, emit)
		}
	case "set", "setenv": // fish's set -gx NAME VALUE…, csh's setenv NAME VALUE
		j := 0
		for j < len(args) && strings.HasPrefix(args[j], "-") {
			j++
		}
		if j+1 < len(args) && isName(args[j]) {
			return assign(args[j], strings.Join(args[j+1:], " "), depth, emit)
		}
		return true
	}
	return options(cmd, args, depth, emit)
}

// options applies the rules on options and arguments to a command's
// arguments.
func options(cmd string, args []string, depth int, emit func(Finding) bool) bool {
	at := func(j int) string {
		if j < len(args) {
			return args[j]
		}
		return ""
	}
	login := registryLogin[cmd] && contains(args, "login")
	for j, a := range args {
		next := at(j + 1)
		var f Finding
		switch {
		case mysqlFamily(cmd) && len(a) > 2 && a[0] == '-' && a[1] == 'p' && literal(a[2:]):
			f = Finding{Rule: RuleAttachedPassword}
		case commandPassword(cmd, a, next), login && (a == "-p" && literal(next) || len(a) > 2 && a[:2] == "-p" && a[2] != '-' && literal(a[2:])),
			positionalPassword(cmd, args, j):
			f = Finding{Rule: RuleCommandPassword}
		case passwordFileArg(cmd, a, next, login) != "":
			f = Finding{Rule: RuleSecretFile, Path: passwordFileArg(cmd, a, next, login)}
		case keyFileOption(cmd, a, next) != "":
			f = Finding{Rule: RuleSecretFile, Path: keyFileOption(cmd, a, next)}
		case secretFileOption(cmd, a, next) != "":
			f = Finding{Rule: RuleSecretFile, Path: secretFileOption(cmd, a, next)}
		case strings.HasPrefix(a, "--") && longOption(cmd, a[2:], next) != RuleNone:
			f = Finding{Rule: longOption(cmd, a[2:], next)}
		case !uidCommand[cmd] && (a == "-u" || a == "-U" || a == "-a" && (cmd == "http" || cmd == "https")) && userPassword(cmd, next),
			!uidCommand[cmd] && len(a) > 2 && a[:2] == "-u" && userPassword(cmd, a[2:]):
			f = Finding{Rule: RuleUserPassword}
		case a == "set" && j > 0 && (args[j-1] == "config" || args[j-1] == "configure") && configKey(lastKeyPart(next)) && literal(at(j+2)),
			cmd == "poetry" && a == "config" && (strings.HasPrefix(next, "http-basic.") && literal(at(j+3)) || strings.HasPrefix(next, "pypi-token.") && literal(at(j+2))):
			f = Finding{Rule: RuleConfigSet}
		case cmd == "git" && a == "config":
			k := j + 1
			for k < len(args) && strings.HasPrefix(args[k], "-") {
				k++
			}
			if p := storeFile(at(k), at(k+1)); p != "" {
				f = Finding{Rule: RuleCredentialStore, Path: p}
			} else if SecretName(at(k)) && !strings.HasSuffix(strings.ToLower(at(k)), ".helper") && literal(at(k+1)) {
				// a helper is a program; its inline script is read by the value rules
				f = Finding{Rule: RuleConfigSet}
			}
		default:
			if name, val, ok := assignment(a); ok && j > 0 {
				if !assign(name, val, depth, emit) {
					return false
				}
			}
		}
		if f.Rule != RuleNone {
			f.What = f.Rule.String()
			if !emit(f) {
				return false
			}
		}
	}
	return true
}

// assign applies RuleAssign and RuleSecretFile to NAME=value (value
// unquoted), and reads the value of another variable as a command line
// in turn (MYSQL_CMD="mysql -pPW").
func assign(name, v string, depth int, emit func(Finding) bool) bool {
	if v == "" {
		return true
	}
	if credentialVarName(name) { // CredentialVars name paths: H7 hides them wherever they point
		if credentialFileVar(name) && filePath(v) {
			return emit(Finding{Rule: RuleSecretFile, What: RuleSecretFile.String(), Path: v})
		}
		return true
	}
	secret := SecretName(name)
	if askpassVar(name) && homeFile(v) {
		return emit(Finding{Rule: RuleSecretFile, What: RuleSecretFile.String(), Path: v})
	}
	if inner, ok := substitution(v); ok {
		fields := strings.Fields(inner)
		switch {
		case !secret || len(fields) == 0:
		case fields[0] == "echo" || fields[0] == "printf":
			for _, a := range fields[1:] {
				if a == "|" {
					break
				}
				if literal(strings.Trim(a, `"'`)) { // $(echo X), $(echo X | base64 -d)
					return emit(Finding{Rule: RuleAssign, What: RuleAssign.String()})
				}
			}
		case fedFile(v) != "":
			return emit(Finding{Rule: RuleSecretFile, What: RuleSecretFile.String(), Path: fedFile(v)})
		case strings.Contains(inner, "<<<") && hereString(fields):
			return emit(Finding{Rule: RuleAssign, What: RuleAssign.String()}) // $(base64 -d <<< …)
		}
		return true
	}
	switch {
	case secret && filePath(v):
		return emit(Finding{Rule: RuleSecretFile, What: RuleSecretFile.String(), Path: v})
	case reference(v), secret && settingValue(v):
		return true
	case secret:
		return emit(Finding{Rule: RuleAssign, What: RuleAssign.String()})
	case depth < maxDepth && strings.ContainsAny(v, " \t"):
		return findValue(v, depth+1, emit)
	}
	return true
}

// settingValue: v is a switch or a small count (true, off, enabled, 20),
// what a setting named like a secret takes (SECRET_SCANNING=enabled,
// PASSWORD_LENGTH=20), never a credential.
func settingValue(v string) bool {
	switch strings.ToLower(v) {
	case "true", "false", "yes", "no", "on", "off", "enabled", "disabled", "enable", "disable", "none", "null":
		return true
	}
	return len(v) <= 3 && isDigits(v)
}

// assignment cuts a word NAME=value or NAME+=value (NAME a shell
// variable name).
func assignment(w string) (name, value string, ok bool) {
	name, value, ok = strings.Cut(w, "=")
	name = strings.TrimSuffix(name, "+")
	return name, value, ok && isName(name)
}

// isName: s is a shell variable name ([A-Za-z_][A-Za-z0-9_]*).
func isName(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c == '_' || isAlnum(c)) || i == 0 && c >= '0' && c <= '9' {
			return false
		}
	}
	return s != ""
}

// substitution returns the command inside $(…) or `…` when v is one.
func substitution(v string) (string, bool) {
	switch {
	case strings.HasPrefix(v, "$(") && strings.HasSuffix(v, ")"):
		return v[2 : len(v)-1], true
	case len(v) > 1 && v[0] == '`' && v[len(v)-1] == '`':
		return v[1 : len(v)-1], true
	}
	return "", false
}

// reference: v takes its value from elsewhere ($X, ${X}, $(cmd), `cmd`,
// <(cmd)) rather than holding it.
func reference(v string) bool {
	return v != "" && (v[0] == '$' || v[0] == '`' || strings.HasPrefix(v, "<("))
}

// literal: v holds a value of its own: not empty, not a reference
// (except $(echo …) and $(printf …), which only assemble a literal),
// not another option.
func literal(v string) bool {
	if inner, ok := substitution(v); ok {
		f := strings.Fields(inner)
		return len(f) > 1 && (f[0] == "echo" || f[0] == "printf") && !reference(f[len(f)-1])
	}
	return v != "" && v[0] != '-' && !reference(v)
}

// filePath: v is an absolute path or one under ~ or $HOME.
func filePath(v string) bool {
	return strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~/") || strings.HasPrefix(v, "$HOME/") ||
		strings.HasPrefix(v, "${HOME}/")
}

// askpassVar: name names a program that prints a password when asked
// (git's, ssh's, sudo's askpass).
func askpassVar(name string) bool {
	return name == "GIT_ASKPASS" || name == "SSH_ASKPASS" || name == "SUDO_ASKPASS"
}

// homeFile: v is a path under the home directory (~/, $HOME/, /home/).
func homeFile(v string) bool {
	return strings.HasPrefix(v, "~/") || strings.HasPrefix(v, "$HOME/") || strings.HasPrefix(v, "${HOME}/") ||
		strings.HasPrefix(v, "/home/")
}

// credentialFileVar: name is one of CredentialVars that names a file or
// directory of credentials (not a socket, a runtime directory or an
// X authority an rc file points elsewhere: SSH_AUTH_SOCK, GPG_AGENT_INFO,
// DBUS_SESSION_BUS_ADDRESS, KRB5CCNAME, XDG_RUNTIME_DIR, XAUTHORITY).
func credentialFileVar(name string) bool {
	switch name {
	case "SSH_AUTH_SOCK", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS", "KRB5CCNAME", "XDG_RUNTIME_DIR", "XAUTHORITY":
		return false
	}
	return true
}

// credentialVarName: name is one of CredentialVars.
func credentialVarName(name string) bool {
	for _, cv := range CredentialVars {
		if cv.Name == name {
			return true
		}
	}
	return false
}

func contains(ws []string, x string) bool {
	for _, w := range ws {
		if w == x {
			return true
		}
	}
	return false
}

// mysqlFamily: the commands whose -p<password> (attached) is the
// password: MySQL's and MariaDB's clients, and 7-Zip.
func mysqlFamily(cmd string) bool {
	switch cmd {
	case "7z", "7za", "7zr":
		return true
	}
	return strings.HasPrefix(cmd, "mysql") || strings.HasPrefix(cmd, "mariadb")
}

// configKey: a configuration key's last part names a secret, as an
// environment variable (SecretName) or a key of a configuration file
// (secretKey: npmAuthIdent, proxyPassword).
func configKey(k string) bool {
	return SecretName(k) || len(k) <= 24 && secretKey(k)
}

// lastKeyPart is a configuration key's last part (after '.' or ':'):
// aws's default.aws_secret_access_key, npm's //host/:_authToken.
func lastKeyPart(key string) string {
	if i := strings.LastIndexAny(key, ".:"); i >= 0 && i+1 < len(key) {
		return key[i+1:]
	}
	return key
}

// positionalPassword: args[j] is a password given as an argument, not an
// option: Oracle's user/password[@db], htpasswd -b's password (its last
// argument), vault login TOKEN, a cookie curl sends (-b/--cookie
// name=value), a proxy's user:password@host (curl -x), lftp -u
// user,password.
func positionalPassword(cmd string, args []string, j int) bool {
	a := args[j]
	prev := ""
	if j > 0 {
		prev = args[j-1]
	}
	switch cmd {
	case "sqlplus", "sqlldr", "rman", "expdp", "impdp", "exp", "imp", "sqlcl", "sql", "dgmgrl":
		if strings.HasPrefix(a, "-") || strings.HasPrefix(prev, "-") && prev != "-s" && prev != "-S" && prev != "-L" {
			return false
		}
		user, rest, ok := strings.Cut(a, "/")
		pw, _, _ := strings.Cut(rest, "@")
		return ok && isName(user) && pw != "" && literal(pw) && !strings.HasPrefix(rest, "/")
	case "htpasswd":
		return j == len(args)-1 && j >= 3 && optionCluster(args, 'b') && literal(a)
	case "vault", "bao":
		return prev == "login" && literal(a) && !strings.Contains(a, "=")
	case "curl":
		switch prev {
		case "-b", "--cookie":
			return literal(a) && strings.Contains(a, "=") && !strings.Contains(a, "/")
		case "-x", "--proxy", "--preproxy":
			user, host, ok := strings.Cut(a, "@")
			if i := strings.Index(user, "://"); i >= 0 {
				user = user[i+3:]
			}
			return ok && host != "" && userPassword(cmd, user)
		}
	case "lftp":
		return prev == "-u" && userPassword("lftp", a)
	}
	return false
}

// optionCluster: one of args is a cluster of one-letter options with c
// (htpasswd -b, -Bb, -nb).
func optionCluster(args []string, c byte) bool {
	for _, a := range args {
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a, c) > 0 {
			return true
		}
	}
	return false
}

// keyFileOption returns the private key file an option names: ssh, scp,
// sftp and ssh-keygen -i FILE (-iFILE), -o IdentityFile=FILE; a git
// askpass or ssh askpass program named by a path under the home
// directory is judged in assign. "" otherwise.
func keyFileOption(cmd, a, next string) string {
	switch cmd {
	case "ssh", "scp", "sftp", "autossh", "mosh", "sshfs", "rsync":
	default:
		return ""
	}
	switch {
	case a == "-i" && literal(next):
		return next
	case len(a) > 2 && a[:2] == "-i" && literal(a[2:]):
		return a[2:]
	case a == "-o" || strings.HasPrefix(a, "-o"):
		o := strings.TrimPrefix(a, "-o")
		if o == "" {
			o = next
		}
		k, v, ok := strings.Cut(o, "=")
		if !ok {
			k, v, ok = strings.Cut(o, " ")
		}
		if ok && strings.EqualFold(strings.TrimSpace(k), "IdentityFile") && literal(strings.TrimSpace(v)) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// commandPasswords are the options that take a password, by command:
// as the next word, or attached to a one-letter option (sshpass -pPW).
var commandPasswords = map[string][]string{
	"sshpass":   {"-p"},
	"redis-cli": {"-a"}, "valkey-cli": {"-a"}, "keydb-cli": {"-a"},
	"mongo": {"-p"}, "mongosh": {"-p"}, "mongodump": {"-p"}, "mongorestore": {"-p"}, "mongoexport": {"-p"}, "mongoimport": {"-p"},
	"ldapsearch": {"-w"}, "ldapmodify": {"-w"}, "ldapadd": {"-w"}, "ldapdelete": {"-w"}, "ldapwhoami": {"-w"},
	"ldappasswd": {"-w"}, "ldapcompare": {"-w"}, "ldapmodrdn": {"-w"},
	"sqlcmd": {"-P"}, "bcp": {"-P"}, "zip": {"-P"}, "unzip": {"-P"}, "twine": {"-p"},
	"keytool":   {"-storepass", "-keypass", "-srcstorepass", "-deststorepass", "-srckeypass", "-destkeypass"},
	"jarsigner": {"-storepass", "-keypass"},
}

// registryLogin are the commands whose `login` subcommand takes -p
// PASSWORD (container registries, cluster and cloud CLIs).
var registryLogin = map[string]bool{"docker": true, "podman": true, "buildah": true, "skopeo": true, "nerdctl": true,
	"helm": true, "oras": true, "crane": true, "regctl": true, "az": true, "oc": true, "cf": true}

// commandPassword: a (with next) is a password option of cmd.
func commandPassword(cmd, a, next string) bool {
	if cmd == "openssl" {
		switch a {
		case "-passin", "-passout", "-pass", "-password":
			return strings.HasPrefix(next, "pass:") && len(next) > 5
		case "-k":
			return literal(next) // enc -k PASSWORD
		}
		return false
	}
	for _, o := range commandPasswords[cmd] {
		if a == o && literal(next) || len(o) == 2 && len(a) > 2 && strings.HasPrefix(a, o) && literal(a[2:]) {
			return true
		}
	}
	return false
}

// uidCommand are commands whose -u takes a user (and group), not
// credentials.
var uidCommand = map[string]bool{"docker": true, "podman": true, "nerdctl": true, "buildah": true, "sudo": true,
	"su": true, "runuser": true, "chroot": true, "setpriv": true, "bwrap": true, "unshare": true, "nsenter": true,
	"ps": true, "pgrep": true, "pkill": true, "top": true, "htop": true, "killall": true, "crontab": true,
	"chown": true, "chgrp": true, "systemctl": true, "journalctl": true, "loginctl": true, "machinectl": true,
	"lxc": true, "incus": true, "id": true, "install": true, "flatpak": true}

// userPassword: v is user:password (smbclient: user%password) with both
// parts literal and not a uid:gid pair.
func userPassword(cmd, v string) bool {
	sep := ":"
	switch cmd {
	case "smbclient":
		sep = "%"
	case "lftp":
		sep = ","
	}
	user, pw, ok := strings.Cut(v, sep)
	if !ok || user == "" || pw == "" || reference(user) || reference(pw) || strings.Contains(user, "/") {
		return false
	}
	return !(isDigits(user) && isDigits(pw))
}

// longOption judges --name[=value] (name without the dashes), with the
// next word as its value when it has no '='.
func longOption(cmd, name, next string) Rule {
	name, val, eq := strings.Cut(name, "=")
	if !eq {
		val = next
	}
	switch {
	case name == "user" || name == "proxy-user":
		if !uidCommand[cmd] && userPassword(cmd, val) {
			return RuleUserPassword
		}
	case passwordOption(name) && literal(val) && !(name == "secret" && strings.Contains(val, "=")):
		return RulePasswordOption // docker build --secret id=x,src=f names a file
	}
	return RuleNone
}

// secretFileOption returns the file an option names as holding a
// password or token: --password-file, --token-file, --secret-file,
// --passphrase-file, --netrc-file, --passfile (FILE or =FILE),
// mysql's --defaults-file and --defaults-extra-file, sshpass -f; ""
// otherwise.
func secretFileOption(cmd, a, next string) string {
	if cmd == "sshpass" && strings.HasPrefix(a, "-f") && !strings.HasPrefix(a, "--") {
		if len(a) > 2 {
			return a[2:]
		}
		if literal(next) {
			return next
		}
		return ""
	}
	name, ok := strings.CutPrefix(a, "--")
	if !ok {
		return ""
	}
	name, val, eq := strings.Cut(name, "=")
	if !eq {
		val = next
	}
	if !literal(val) {
		return ""
	}
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == '-' || r == '_' })
	switch n := len(words); {
	case n == 1 && words[0] == "passfile":
		return val
	case n == 2 && words[0] == "defaults" && mysqlFamily(cmd), n == 3 && words[0] == "defaults" && words[1] == "extra" && mysqlFamily(cmd):
		if words[n-1] == "file" {
			return val
		}
	case n == 1 && words[0] == "keyfile":
		return val
	case n >= 2 && words[n-1] == "file":
		switch words[n-2] {
		case "password", "passwd", "pass", "token", "secret", "passphrase", "netrc", "credentials", "key":
			return val
		}
	}
	return ""
}

// passwordOption: a long option's name (without the dashes) takes a
// password or token: its last word (at '-' or '_') names one, and its
// first is not a yes/no word (--no-password, --ask-password).
func passwordOption(name string) bool {
	name = strings.ToLower(name)
	words := strings.FieldsFunc(name, func(r rune) bool { return r == '-' || r == '_' })
	if len(words) == 0 {
		return false
	}
	switch words[0] {
	case "no", "ask", "prompt", "read", "use", "with", "skip", "require", "show", "save", "store", "reset", "change", "new":
		if len(words) > 1 {
			return false
		}
	}
	switch words[len(words)-1] {
	case "password", "passwd", "pass", "passphrase", "token", "secret", "apikey", "bearer", "storepass", "keypass":
		return true
	case "key":
		return len(words) > 1 && (words[len(words)-2] == "api" || words[len(words)-2] == "secret")
	}
	return false
}

// storeFile returns the file of git's store helper when key is
// credential.helper (or credential.<url>.helper) and value is "store
// --file FILE" or "store --file=FILE".
func storeFile(key, value string) string {
	k := strings.ToLower(key)
	if !strings.HasPrefix(k, "credential.") || !strings.HasSuffix(k, ".helper") {
		return ""
	}
	return helperStoreFile(value)
}

// helperStoreFile returns FILE of a credential helper "store --file
// FILE" (also git-credential-store, --file=FILE); "" otherwise.
func helperStoreFile(value string) string {
	v := strings.TrimSpace(value)
	if len(v) > 1 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		v = v[1 : len(v)-1] // git's own quoting of the whole value
	}
	var f []string
	if cs := commands(v); len(cs) > 0 {
		f = cs[0] // the shell's words: a quoted file name keeps its blanks
	}
	if len(f) < 2 || f[0] != "store" && path.Base(f[0]) != "git-credential-store" {
		return ""
	}
	for i, w := range f[1:] {
		if w == "--file" && i+2 < len(f) {
			return f[i+2]
		}
		if p, ok := strings.CutPrefix(w, "--file="); ok {
			return p
		}
	}
	return ""
}

// maxSourced bounds the files Sourced returns for one text.
const maxSourced = 16

// Sourced returns the files a shell text reads in with `. FILE` or
// `source FILE` (FILE literal: absolute, or under ~ or $HOME as
// written), at most maxSourced: they are start-up files in turn, and a
// secret moved into one is as readable as in the file that sources it.
// A reference to another variable ($NVM_DIR/nvm.sh) is not followed.
func Sourced(text string) []string {
	var out []string
	for n := 0; text != "" && n < MaxLines && len(out) < maxSourced; n++ {
		line, rest, _ := strings.Cut(text, "\n")
		text = rest
		if len(line) > MaxLineBytes || !strings.Contains(line, "source") && !strings.Contains(line, ". ") {
			continue
		}
		for _, words := range commands(line) {
			if len(words) >= 2 && (words[0] == "." || words[0] == "source") && filePath(words[1]) && len(out) < maxSourced {
				out = append(out, words[1])
			}
		}
	}
	return out
}
