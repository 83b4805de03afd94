package report

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/bwpolicy/bwpolicy/diag"
)

// gitlabIssue is one entry of a GitLab Code Quality report (the subset
// of the Code Climate issue format GitLab reads).
type gitlabIssue struct {
	Description string         `json:"description"`
	CheckName   string         `json:"check_name"`
	Fingerprint string         `json:"fingerprint"`
	Severity    string         `json:"severity"`
	Location    gitlabLocation `json:"location"`
}

type gitlabLocation struct {
	Path  string      `json:"path"`
	Lines gitlabLines `json:"lines"`
}

type gitlabLines struct {
	Begin int `json:"begin"`
}

// GitLab writes the report as a GitLab Code Quality report (a JSON
// array; artifacts:reports:codequality), which GitLab shows in the merge
// request and on the changed lines. Severity: an error of a rule that
// protects the sandbox (Rule.Security) is "critical", another error
// "major", a warning "minor", a failure of the check itself "blocker".
// The path is relative to the repository root (r.WorkDir: check's
// directory; an absolute path under it is made relative), the line is 1
// for a finding about a file as a whole. The fingerprint is the SARIF
// partial fingerprint, made unique within the report (GitLab merges
// issues with equal fingerprints). Suppressed findings are left out.
func GitLab(w io.Writer, r *Report) error {
	out := []gitlabIssue{}
	seen := map[string]int{}
	add := func(d diag.Diagnostic, severity string) {
		fp := fingerprint(d)
		if n := seen[fp]; n > 0 {
			seen[fp]++
			fp = fingerprint(diag.Diagnostic{Rule: d.Rule, Pos: d.Pos, Path: d.Path, Summary: d.Summary + "\x00" + strconv.Itoa(n)})
		} else {
			seen[fp] = 1
		}
		desc := message(d)
		if d.Rule != "" {
			desc += " [" + d.Rule + "]"
		}
		out = append(out, gitlabIssue{Description: desc, CheckName: d.Rule, Fingerprint: fp, Severity: severity,
			Location: gitlabLocation{Path: r.repoPath(d.Pos.File), Lines: gitlabLines{Begin: max(d.Pos.Line, 1)}}})
	}
	for _, d := range r.Findings {
		sev := "minor"
		if d.Severity == diag.Error {
			sev = "major"
			if r.rule(d.Rule).Security {
				sev = "critical"
			}
		}
		add(d, sev)
	}
	for _, d := range r.Failures {
		add(d, "blocker")
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// repoPath is file relative to r.WorkDir when it is an absolute path
// under it, else file as named, slash-separated, without a leading "./".
func (r *Report) repoPath(file string) string {
	if filepath.IsAbs(file) && r.WorkDir != "" {
		if rel, err := filepath.Rel(r.WorkDir, file); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			file = rel
		}
	}
	if strings.HasPrefix(file, "<") {
		return file
	}
	return strings.TrimPrefix(filepath.ToSlash(filepath.Clean(file)), "./")
}
