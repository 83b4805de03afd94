package secrets

import "strings"

// Bounds of Scan: a text is examined up to MaxTextBytes, MaxLines lines
// and MaxLineBytes a line; beyond them Scan reports RuleUnexamined, and
// the caller hides what it could not examine. At most MaxFindings are
// returned.
const (
	MaxTextBytes = 1 << 20
	MaxLines     = 1 << 14
	MaxLineBytes = 64 << 10
	MaxFindings  = 32
)

// Find returns the first finding in v (a value or one line), if any.
func Find(v string) (Finding, bool) {
	var first Finding
	found := false
	findLine(v, func(f Finding) bool {
		first, found = f, true
		return false
	})
	return first, found
}

// Scan returns the first finding of each line of text that has one, with
// its line number, at most MaxFindings. A text beyond the bounds
// (MaxTextBytes, MaxLines, MaxLineBytes) ends with a RuleUnexamined
// finding at the line where examining stopped.
func Scan(text string) []Finding {
	var out []Finding
	stop := func(line int) []Finding {
		return append(out, Finding{Rule: RuleUnexamined, What: RuleUnexamined.String(), Line: line})
	}
	if len(text) > MaxTextBytes {
		return stop(1)
	}
	for n := 1; text != ""; {
		if n > MaxLines {
			return stop(n)
		}
		line, rest, lines := logicalLine(text)
		text = rest
		if len(line) > MaxLineBytes {
			return stop(n)
		}
		if f, ok := Find(line); ok {
			f.Line = n
			if out = append(out, f); len(out) == MaxFindings {
				return out
			}
		}
		n += lines
	}
	return out
}

// maxJoined bounds the lines logicalLine joins into one.
const maxJoined = 64

// logicalLine cuts the first logical line off text, as a shell reads
// it: lines ending in a backslash continue on the next (the backslash
// and the newline removed, so a word split over lines is whole again),
// and a command whose here-document (<<WORD) ends within
// maxJoined lines is read with its body as a here-string in the
// here-document's place (<<< line), so that `docker login
// --password-stdin <<EOF` / PW / `EOF` is one command: a one-line body
// is taken with the command; of a longer one, the first line that is a
// literal (else the first not blank) stands in the command, and the
// body's lines are read after it, each a line of its own. It returns the
// line, the rest of text and how many lines it took (at most maxJoined,
// and the line at most MaxLineBytes+1 long).
func logicalLine(text string) (line, rest string, lines int) {
	line, rest, _ = strings.Cut(text, "\n")
	lines = 1
	if !strings.HasSuffix(line, "\\") && !strings.Contains(line, "<<") {
		return line, rest, lines
	}
	joined := line
	for lines < maxJoined && len(joined) <= MaxLineBytes && strings.HasSuffix(line, "\\") && rest != "" {
		line, rest, _ = strings.Cut(rest, "\n")
		joined = joined[:len(joined)-1] + line
		lines++
	}
	start, end, word := hereDoc(joined)
	if word == "" {
		return joined, rest, lines
	}
	body, after, ok := hereDocBody(rest, word)
	if !ok || len(joined)+len(body[0]) > MaxLineBytes {
		return joined, rest, lines
	}
	in := body[0]
	for _, b := range body {
		if f := strings.Fields(b); len(f) > 0 && literal(f[0]) {
			in = b
			break
		}
	}
	joined = joined[:start] + "<<< " + in + " " + joined[end:]
	if len(body) == 1 {
		return joined, after, lines + 2
	}
	return joined, rest, lines
}

// hereDocBody returns the lines of text before the line that is word
// alone (blanks around it allowed, as <<- strips tabs): the body of a
// here-document, without its blank lines (at least one line kept); ok
// is false when word does not end it within maxJoined lines.
func hereDocBody(text, word string) (body []string, after string, ok bool) {
	var all []string
	for n := 0; n < maxJoined && text != ""; n++ {
		l, r, _ := strings.Cut(text, "\n")
		text = r
		if strings.TrimSpace(l) == word {
			for _, b := range all {
				if strings.TrimSpace(b) != "" {
					body = append(body, strings.TrimSpace(b))
				}
			}
			if len(body) == 0 {
				body = []string{""}
			}
			if len(all) == 1 {
				body = []string{all[0]}
			}
			return body, text, len(all) > 0
		}
		all = append(all, l)
	}
	return nil, "", false
}

// hereDoc returns the delimiter of a here-document the line opens
// (<<WORD, <<-WORD, <<'WORD', <<"WORD"), "" when it opens none, and
// where its operator and word lie in line (line[start:end]).
func hereDoc(line string) (start, end int, word string) {
	i := strings.Index(line, "<<")
	if i < 0 || strings.HasPrefix(line[i:], "<<<") {
		return 0, 0, ""
	}
	j := i + 2
	if j < len(line) && line[j] == '-' {
		j++
	}
	for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
		j++
	}
	k := j
	for k < len(line) && line[k] != ' ' && line[k] != '\t' && line[k] != '|' && line[k] != ';' && line[k] != '&' && line[k] != ')' {
		k++
	}
	w := strings.Trim(line[j:k], `"'`)
	if !isName(w) {
		return 0, 0, ""
	}
	return i, k, w
}

// findLine applies the line rules (a comment's text too: it is as
// readable) and then the value and word rules to one line.
func findLine(line string, emit func(Finding) bool) bool {
	t := strings.TrimLeft(line, " \t#")
	if len(t) < 3 {
		return true
	}
	if k, v, ok := strings.Cut(t, "="); ok && strings.EqualFold(strings.TrimSpace(k), "helper") {
		if p := helperStoreFile(v); p != "" { // git's [credential] helper = store --file FILE
			if !emit(Finding{Rule: RuleCredentialStore, What: RuleCredentialStore.String(), Path: p}) {
				return false
			}
		}
	}
	if passwordLine(t) && !emit(Finding{Rule: RulePasswordLine, What: RulePasswordLine.String()}) {
		return false
	}
	if pgpassLine(t) && !emit(Finding{Rule: RulePgpass, What: RulePgpass.String()}) {
		return false
	}
	return findValue(t, 0, emit)
}

// pgpassLine: t is a line of libpq's password file:
// host:port:database:user:password, five fields without blanks, the
// port digits or '*', the password not empty (a ':' or '\' in a field
// is escaped with '\').
func pgpassLine(t string) bool {
	if strings.ContainsAny(t, " \t") || strings.Count(t, ":") < 4 {
		return false
	}
	f := strings.Split(strings.ReplaceAll(t, `\:`, "_"), ":")
	return len(f) == 5 && f[0] != "" && (f[1] == "*" || isDigits(f[1])) && f[3] != "" && f[4] != ""
}

// passwordLine: t (trimmed) is "password VALUE" or "passwd VALUE" alone
// (a netrc split over lines), or a secret key followed by one quoted
// value (Gradle's `password 'x'`, `token "x"`), also as one statement
// among others on the line (`credentials { username 'u'; password 'p' }`).
func passwordLine(t string) bool {
	if strings.ContainsAny(t, ";{") {
		for _, part := range strings.FieldsFunc(t, func(r rune) bool { return r == ';' || r == '{' || r == '}' }) {
			if p := strings.TrimSpace(part); p != t && passwordStatement(p) {
				return true
			}
		}
	}
	return passwordStatement(t)
}

// passwordStatement is passwordLine on one statement.
func passwordStatement(t string) bool {
	key, val, ok := strings.Cut(strings.TrimRight(t, " \t\r;"), " ")
	val = strings.TrimSpace(val)
	if !ok || val == "" || reference(val) || val[0] == '=' || val[0] == ':' {
		return false
	}
	if (key == "password" || key == "passwd") && !strings.ContainsAny(val, " \t") {
		return true
	}
	q := val[0]
	return len(val) > 2 && (q == '\'' || q == '"') && val[len(val)-1] == q && strings.IndexByte(val[1:len(val)-1], q) < 0 &&
		len(key) <= 24 && secretKey(key)
}
