package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/bwpolicy/bwpolicy/diag"
)

// SARIFSchema is the $schema the SARIF output names.
const SARIFSchema = "https://json.schemastore.org/sarif-2.1.0.json"

// The SARIF 2.1.0 objects bwpolicy writes (a subset of the standard:
// https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html).
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool               sarifTool                   `json:"tool"`
		Invocations        []sarifInvocation           `json:"invocations"`
		OriginalURIBaseIDs map[string]sarifArtifactLoc `json:"originalUriBaseIds,omitempty"`
		Artifacts          []sarifArtifact             `json:"artifacts,omitempty"`
		Results            []sarifResult               `json:"results"`
		ColumnKind         string                      `json:"columnKind"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
		InformationURI string      `json:"informationUri,omitempty"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string         `json:"id"`
		Name                 string         `json:"name,omitempty"`
		ShortDescription     sarifText      `json:"shortDescription"`
		FullDescription      sarifText      `json:"fullDescription"`
		Help                 sarifHelp      `json:"help"`
		HelpURI              string         `json:"helpUri,omitempty"`
		DefaultConfiguration sarifRuleConf  `json:"defaultConfiguration"`
		Properties           map[string]any `json:"properties,omitempty"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifHelp struct {
		Text     string `json:"text"`
		Markdown string `json:"markdown,omitempty"`
	}
	sarifRuleConf struct {
		Level string `json:"level"`
	}
	sarifResult struct {
		RuleID              string             `json:"ruleId"`
		RuleIndex           int                `json:"ruleIndex"`
		Level               string             `json:"level"`
		Message             sarifText          `json:"message"`
		Locations           []sarifLocation    `json:"locations"`
		RelatedLocations    []sarifRelated     `json:"relatedLocations,omitempty"`
		PartialFingerprints map[string]string  `json:"partialFingerprints"`
		Suppressions        []sarifSuppression `json:"suppressions,omitempty"`
		Properties          map[string]any     `json:"properties,omitempty"`
	}
	sarifSuppression struct {
		Kind          string         `json:"kind"`
		Justification string         `json:"justification,omitempty"`
		Location      *sarifLocation `json:"location,omitempty"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysical `json:"physicalLocation"`
	}
	// sarifRelated is a related location: in a file the report read, or
	// (a file built into bwpolicy) only its message, naming the place.
	sarifRelated struct {
		ID               int            `json:"id"`
		PhysicalLocation *sarifPhysical `json:"physicalLocation,omitempty"`
		Message          sarifText      `json:"message"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifactLoc `json:"artifactLocation"`
		Region           *sarifRegion     `json:"region,omitempty"`
	}
	sarifArtifactLoc struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId,omitempty"`
		Index     *int   `json:"index,omitempty"`
	}
	sarifArtifact struct {
		Location sarifArtifactLoc `json:"location"`
		Roles    []string         `json:"roles,omitempty"`
	}
	sarifRegion struct {
		StartLine   int        `json:"startLine"`
		StartColumn int        `json:"startColumn,omitempty"`
		Snippet     *sarifText `json:"snippet,omitempty"`
	}
	sarifInvocation struct {
		ExecutionSuccessful        bool                `json:"executionSuccessful"`
		ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
	}
	sarifNotification struct {
		Level      string          `json:"level"`
		Message    sarifText       `json:"message"`
		Locations  []sarifLocation `json:"locations,omitempty"`
		Descriptor *sarifRef       `json:"descriptor,omitempty"`
	}
	sarifRef struct {
		ID string `json:"id"`
	}
)

// srcRoot is the uriBaseId of relative file names.
const srcRoot = "%SRCROOT%"

// SARIF writes a SARIF 2.1.0 log with one run: the rules (id, name,
// short and full description, help text), one located result per
// finding, the checked files as artifacts, and an invocation whose
// executionSuccessful is false when there are failures (listed as
// toolExecutionNotifications).
func SARIF(w io.Writer, r *Report) error {
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{Name: r.Tool.Name, Version: r.Tool.Version,
			InformationURI: r.Tool.URI, Rules: []sarifRule{}}},
		Results: []sarifResult{},
		// go-yaml and CUE count columns in characters.
		ColumnKind: "unicodeCodePoints",
	}
	if r.WorkDir != "" && filepath.IsAbs(r.WorkDir) {
		run.OriginalURIBaseIDs = map[string]sarifArtifactLoc{srcRoot: {URI: fileURI(r.WorkDir, true)}}
	}
	index := map[string]int{}
	for _, id := range r.ruleIDs() {
		index[id] = len(run.Tool.Driver.Rules)
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRuleOf(r.rule(id)))
	}
	for _, in := range r.Inputs {
		if loc, ok := artifactLocation(in); ok {
			run.Artifacts = append(run.Artifacts, sarifArtifact{Location: loc, Roles: []string{"analysisTarget"}})
		}
	}
	inv := sarifInvocation{ExecutionSuccessful: len(r.Failures) == 0}
	all := make([]Suppressed, 0, len(r.Findings)+len(r.Suppressed))
	for _, d := range r.Findings {
		all = append(all, Suppressed{Diagnostic: d})
	}
	all = append(all, r.Suppressed...)
	for _, f := range all {
		d := f.Diagnostic
		locs := r.locations(d)
		if len(locs) == 0 {
			// About no file (the embedded defaults): a result needs a
			// location (GitHub refuses the whole upload otherwise), so
			// it is reported as a notification of the run.
			inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{
				Level: level(d.Severity), Message: sarifText{Text: resultText(d)}, Descriptor: &sarifRef{ID: d.Rule}})
			continue
		}
		res := sarifResult{RuleID: d.Rule, RuleIndex: index[d.Rule], Level: level(d.Severity),
			Message: sarifText{Text: resultText(d)}, Locations: locs, RelatedLocations: r.related(d),
			PartialFingerprints: map[string]string{fingerprintKey: fingerprint(d)}}
		if f.At.File != "" {
			at := r.locations(diag.Diagnostic{Pos: f.At})
			sup := sarifSuppression{Kind: "inSource", Justification: f.Justification}
			if len(at) > 0 {
				sup.Location = &at[0]
			}
			res.Suppressions = []sarifSuppression{sup}
		}
		if d.Path != "" {
			res.Properties = map[string]any{"path": d.Path}
		}
		run.Results = append(run.Results, res)
	}
	for _, d := range r.Failures {
		n := sarifNotification{Level: "error", Message: sarifText{Text: resultText(d)}, Locations: r.locations(d)}
		if d.Rule != "" {
			n.Descriptor = &sarifRef{ID: d.Rule}
		}
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, n)
	}
	run.Invocations = []sarifInvocation{inv}
	log := sarifLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []sarifRun{run}}
	b, err := json.MarshalIndent(log, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func sarifRuleOf(ru Rule) sarifRule {
	full := sentence(ru.Short)
	if ru.Help != "" {
		full += " " + ru.Help
	}
	sr := sarifRule{
		ID: ru.ID, Name: ru.Name,
		ShortDescription:     sarifText{Text: ru.Short},
		FullDescription:      sarifText{Text: full},
		Help:                 sarifHelp{Text: full, Markdown: "**" + ru.ID + "**: " + sentence(ru.Short) + "\n\n" + ru.Help},
		HelpURI:              ru.HelpURI,
		DefaultConfiguration: sarifRuleConf{Level: level(ru.Level)},
	}
	if sr.Name == "" {
		sr.Name = ruleName(ru.ID)
	}
	tags := []string{"bwpolicy"}
	props := map[string]any{}
	if ru.Security {
		tags = append(tags, "security")
		// GitHub code scanning ranks security results by this score.
		if ru.Level == diag.Error {
			props["security-severity"] = "7.5"
		} else {
			props["security-severity"] = "4.0"
		}
	}
	if strings.HasPrefix(ru.ID, "custom.") {
		tags = append(tags, "organisation")
	}
	props["tags"] = tags
	sr.Properties = props
	return sr
}

// sentence ends s with a full stop unless it ends with punctuation.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s[len(s)-1:], ".!?:)") {
		return s
	}
	return s + "."
}

func level(s diag.Severity) string {
	if s == diag.Warning {
		return "warning"
	}
	return "error"
}

func resultText(d diag.Diagnostic) string {
	t := message(d)
	if d.Detail != "" {
		t += "\n" + d.Detail
	}
	return t
}

// related returns d's related locations (diag.Related), numbered from
// 1. One in a file the report read points at it; one elsewhere (a file
// built into bwpolicy, such as schema/sandbox.cue) has only a message
// that names the place.
func (r *Report) related(d diag.Diagnostic) []sarifRelated {
	var out []sarifRelated
	for i, rel := range d.Related {
		sr := sarifRelated{ID: i + 1, Message: sarifText{Text: rel.Message}}
		if _, read := r.Sources[rel.Pos.File]; read {
			if pl, ok := r.physical(rel.Pos); ok {
				sr.PhysicalLocation = &pl
			}
		}
		if sr.PhysicalLocation == nil {
			sr.Message.Text += " (" + rel.Pos.String() + ")"
		}
		out = append(out, sr)
	}
	return out
}

// locations returns d's location: the file (relative to %SRCROOT%, or an
// absolute file: URI), the line (1 when unknown), the column when known
// and the line's text. A diagnostic about no file (the embedded defaults)
// has none.
func (r *Report) locations(d diag.Diagnostic) []sarifLocation {
	pl, ok := r.physical(d.Pos)
	if !ok {
		return []sarifLocation{}
	}
	return []sarifLocation{{PhysicalLocation: pl}}
}

// physical is the physical location of pos; false for a name that is
// not a file.
func (r *Report) physical(pos diag.Pos) (sarifPhysical, bool) {
	loc, ok := artifactLocation(pos.File)
	if !ok {
		return sarifPhysical{}, false
	}
	pl := sarifPhysical{ArtifactLocation: loc}
	// A finding about the file as a whole (unreadable, too large) points
	// at its first line: code scanning needs a region with startLine >= 1.
	pl.Region = &sarifRegion{StartLine: max(pos.Line, 1), StartColumn: pos.Col}
	if pos.Line <= 0 {
		pl.Region.StartColumn = 0
	}
	if line, ok := sourceLine(r.Sources[pos.File], pl.Region.StartLine); ok && len(line) > 0 {
		pl.Region.Snippet = &sarifText{Text: diag.ClipBytes(line)}
	}
	return pl, true
}

// artifactLocation turns a file name into a SARIF artifact location;
// false for names that are not files ("<embedded defaults>", "").
func artifactLocation(file string) (sarifArtifactLoc, bool) {
	if file == "" || strings.HasPrefix(file, "<") {
		return sarifArtifactLoc{}, false
	}
	if filepath.IsAbs(file) {
		return sarifArtifactLoc{URI: fileURI(file, false)}, true
	}
	p := filepath.ToSlash(filepath.Clean(file))
	u := (&url.URL{Path: p}).EscapedPath()
	if first, _, _ := strings.Cut(u, "/"); strings.Contains(first, ":") {
		u = "./" + u // not a scheme
	}
	return sarifArtifactLoc{URI: u, URIBaseID: srcRoot}, true
}

// fileURI is the file: URI of an absolute path; dir adds the trailing
// slash a base URI needs.
func fileURI(p string, dir bool) string {
	p = filepath.ToSlash(filepath.Clean(p))
	if dir && !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// sourceLine returns line n (1-based) of src without its line ending, a
// slice of src.
func sourceLine(src []byte, n int) ([]byte, bool) {
	if src == nil || n <= 0 {
		return nil, false
	}
	for i := 1; ; i++ {
		j := bytes.IndexByte(src, '\n')
		if i == n {
			if j >= 0 {
				src = src[:j]
			}
			return bytes.TrimRight(src, "\r"), true
		}
		if j < 0 {
			return nil, false
		}
		src = src[j+1:]
	}
}

// fingerprintKey names bwpolicy's partial fingerprint (versioned: a
// change of what it hashes changes the name).
const fingerprintKey = "bwpolicyFinding/v1"

// fingerprint identifies a finding across runs whatever line it moves
// to: a hash of its rule, file, settings key path and message.
func fingerprint(d diag.Diagnostic) string {
	h := sha256.New()
	for _, s := range []string{d.Rule, filepath.ToSlash(d.Pos.File), d.Path, d.Summary} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}
