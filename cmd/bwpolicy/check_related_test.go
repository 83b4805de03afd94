package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/internal/testtree"
)

// TestCheckRelatedPositions: a CUE conflict keeps its second position.
// In text it is a note under the finding; in SARIF a related location —
// with a physical location when it is in a file the check read (two
// values of one profile), with only a message naming it when it is in
// bwpolicy's own schema/sandbox.cue; in JSON a "related" list; in
// GitHub's annotations note lines inside the finding's own message.
func TestCheckRelatedPositions(t *testing.T) {
	env := sandboxEnv(t)
	dir := testtree.Write(t, map[string]string{
		"profiles/rwroot.cue": "name:         \"rwroot\"\ndescription:  \"writable root\"\ncwd_writable: true\nroot:         \"read-write\"\n",
		"profiles/twice.cue":  "name:         \"twice\"\ndescription:  \"says it twice\"\ncwd_writable: true\ncwd_writable: false\n",
	})
	r := run(t, dir, env, "check", "--profiles", "profiles")
	wantCode(t, r, 1)
	wantContains(t, r, "stdout", "  schema/sandbox.cue:")
	wantContains(t, r, "stdout", ": note: the value bwpolicy's shared definition #Profile sets")
	wantContains(t, r, "stdout", "  profiles/twice.cue:")

	r = run(t, dir, env, "check", "--format", "sarif", "--profiles", "profiles")
	wantCode(t, r, 1)
	validateSARIF(t, []byte(r.stdout))
	var log struct {
		Runs []struct {
			Results []struct {
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string } `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				RelatedLocations []struct {
					ID               int `json:"id"`
					PhysicalLocation *struct {
						ArtifactLocation struct{ URI string }    `json:"artifactLocation"`
						Region           struct{ StartLine int } `json:"region"`
					} `json:"physicalLocation"`
					Message struct{ Text string } `json:"message"`
				} `json:"relatedLocations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &log); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, res := range log.Runs[0].Results {
		uri := res.Locations[0].PhysicalLocation.ArtifactLocation.URI
		for _, rel := range res.RelatedLocations {
			switch {
			case uri == "profiles/rwroot.cue" && rel.PhysicalLocation == nil && strings.Contains(rel.Message.Text, "(schema/sandbox.cue:"):
				seen["schema"] = true
			case uri == "profiles/twice.cue" && rel.PhysicalLocation != nil && rel.PhysicalLocation.ArtifactLocation.URI == "profiles/twice.cue" && rel.PhysicalLocation.Region.StartLine > 0:
				seen["profile"] = true
			}
		}
	}
	if !seen["schema"] || !seen["profile"] {
		t.Errorf("related locations: %v\n%s", seen, r.stdout)
	}

	r = run(t, dir, env, "check", "--format", "json", "--profiles", "profiles")
	wantCode(t, r, 1)
	type related struct {
		File    string
		Line    int
		Message string
	}
	seen = map[string]bool{}
	for _, d := range checkJSON[struct {
		File    string
		Related []related
	}](t, []byte(r.stdout)) {
		for _, rel := range d.Related {
			switch {
			case d.File == "profiles/rwroot.cue" && rel.File == "schema/sandbox.cue" && rel.Line > 0:
				seen["schema"] = true
			case d.File == "profiles/twice.cue" && rel.File == "profiles/twice.cue" && rel.Line > 0 && rel.Message != "":
				seen["profile"] = true
			}
		}
	}
	if !seen["schema"] || !seen["profile"] {
		t.Errorf("json related: %v\n%s", seen, r.stdout)
	}

	r = run(t, dir, env, "check", "--format", "github", "--profiles", "profiles")
	wantCode(t, r, 1)
	seen = map[string]bool{}
	for _, line := range strings.Split(r.stdout, "\n") {
		switch {
		case strings.HasPrefix(line, "::error file=profiles/rwroot.cue,") && strings.Contains(line, "%0Aschema/sandbox.cue:"):
			seen["schema"] = true
		case strings.HasPrefix(line, "::error file=profiles/twice.cue,") && strings.Contains(line, "%0Aprofiles/twice.cue:"):
			seen["profile"] = true
		case strings.HasPrefix(line, "::notice"):
			t.Errorf("a related position became an annotation of its own: %s", line)
		}
	}
	if !seen["schema"] || !seen["profile"] {
		t.Errorf("github related: %v\n%s", seen, r.stdout)
	}
}
