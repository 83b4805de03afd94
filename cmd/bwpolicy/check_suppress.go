package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/report"
)

// ignoreComment is an inline suppression: "# bwpolicy:ignore R7 reason"
// (several IDs separated by commas), at the end of the line it silences
// or alone on the line above it.
var ignoreComment = regexp.MustCompile(`(?:^|\s)#\s*bwpolicy:ignore(?:\s+(.*))?$`)

// suppression is one inline suppression comment.
type suppression struct {
	ids    []string
	reason string
	at     diag.Pos // the comment
	line   int      // the line it silences
	used   bool
}

// parseSuppressions finds the suppression comments of a settings file.
// A comment that names no ID, or an ID known returns false for, is an
// error at the comment: a misspelt ID must not silence nothing quietly.
func parseSuppressions(file string, src []byte, known func(string) bool) ([]*suppression, diag.List) {
	var out []*suppression
	var errs diag.List
	for i, line := range strings.Split(string(src), "\n") {
		m := ignoreComment.FindStringSubmatchIndex(line)
		if m == nil {
			continue
		}
		hash := strings.Index(line[m[0]:], "#") + m[0]
		s := &suppression{at: diag.Pos{File: file, Line: i + 1, Col: hash + 1}, line: i + 1}
		if strings.TrimSpace(line[:hash]) == "" {
			s.line = i + 2 // alone on its line: it silences the next one
		}
		rest := ""
		if m[2] >= 0 {
			rest = strings.TrimSpace(line[m[2]:m[3]])
		}
		idList, reason, _ := strings.Cut(rest, " ")
		s.reason = strings.TrimSpace(reason)
		unknown := 0
		for _, id := range strings.Split(idList, ",") {
			if id = strings.TrimSpace(id); id == "" {
				continue
			}
			if !known(id) {
				errs.Add(diag.Diagnostic{Severity: diag.Error, Rule: "suppression", Pos: s.at,
					Summary: fmt.Sprintf("bwpolicy:ignore names the unknown rule ID %s", diag.Quote(id))})
				unknown++
				continue
			}
			s.ids = append(s.ids, id)
		}
		if len(s.ids) == 0 && unknown == 0 {
			errs.Add(diag.Diagnostic{Severity: diag.Error, Rule: "suppression", Pos: s.at,
				Summary: "bwpolicy:ignore names no rule ID (write # bwpolicy:ignore R7 the reason)"})
		}
		out = append(out, s)
	}
	return out, errs
}

// suppress splits the findings of one file into those that stay and
// those an inline comment silences, and adds the errors of the comments
// themselves.
func suppress(file string, src []byte, findings diag.List, known func(string) bool) (diag.List, []report.Suppressed) {
	if !strings.Contains(string(src), "bwpolicy:ignore") {
		return findings, nil
	}
	sups, errs := parseSuppressions(file, src, known)
	var kept diag.List
	var silenced []report.Suppressed
	for _, d := range findings {
		var by *suppression
		for _, s := range sups {
			if d.Pos.File == file && d.Pos.Line == s.line && containsID(s.ids, d.Rule) {
				by = s
				break
			}
		}
		if by == nil {
			kept.Add(d)
			continue
		}
		by.used = true
		silenced = append(silenced, report.Suppressed{Diagnostic: d, Justification: by.reason, At: by.at})
	}
	kept.Append(errs)
	return kept, silenced
}

func containsID(ids []string, id string) bool {
	for _, i := range ids {
		if i == id {
			return true
		}
	}
	return false
}
