package main

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/internal/testtree"
)

// runUnderCPULimit runs bwpolicy with args in dir under a hard CPU time
// limit of 10 s, below every profile's cpu_seconds default (30), so a
// settings file that does not set cpu_seconds gets R12's clamp warning
// about a value that comes from the profile's defaults.
func runUnderCPULimit(t *testing.T, dir string, args ...string) result {
	t.Helper()
	cmd := exec.Command("sh", append([]string{"-c", `ulimit -t 10 && exec "$0" "$@"`, bwpolicyBin}, args...)...)
	cmd.Dir = dir
	cmd.Env = sandboxEnv(t)
	return runCmd(t, cmd)
}

// TestCheckDefaultValuePositions: a warning about a value the settings
// leave to the profile's defaults is on the settings file's profile:
// line (line 1 when the file names no profile), in every format, and
// never in profiles/*.cue (no file of the user's); when the default is a
// custom profile's, that profile's line is a related position.
func TestCheckDefaultValuePositions(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"a.yaml":           "# the build agent\nprofile: workspace\n",
		"b.yaml":           "hide: [secrets]\n",
		"c.yaml":           "memory_mb: 512\nprofile: big\n",
		"d.yaml":           "profile: workspace\ncpu_seconds: 5\n",
		"profiles/big.cue": "name:         \"big\"\ndescription:  \"long builds\"\ncwd_writable: true\ndefaults: cpu_seconds: 600\n",
	})
	inputs := []string{"--profiles", "profiles", "a.yaml", "b.yaml", "c.yaml", "d.yaml"}
	type at struct {
		file      string
		line, col int
	}
	want := []at{{"a.yaml", 2, 10}, {"b.yaml", 1, 0}, {"c.yaml", 2, 10}}
	const related = "profiles/big.cue:4:"

	r := runUnderCPULimit(t, dir, append([]string{"check"}, inputs...)...)
	wantCode(t, r, 0)
	wantContains(t, r, "stdout", "a.yaml:2:10: warning: cpu_seconds: cpu_seconds 30 is above the inherited hard limit (10): clamped [R12]\n     2 | profile: workspace\n")
	wantContains(t, r, "stdout", "b.yaml:1: warning: cpu_seconds: cpu_seconds 30 is above")
	wantContains(t, r, "stdout", "c.yaml:2:10: warning: cpu_seconds: cpu_seconds 600 is above")
	wantContains(t, r, "stdout", "  "+related)
	if strings.Contains(r.stdout, "d.yaml") || strings.Contains(r.stdout, "workspace.cue") || strings.Contains(r.stdout, "sandbox.cue") {
		t.Errorf("a finding where none belongs:\n%s", r)
	}

	r = runUnderCPULimit(t, dir, append([]string{"check", "--format", "json"}, inputs...)...)
	wantCode(t, r, 0)
	type jsonDiag struct {
		File         string
		Line, Column int
		Rule         string
		Related      []struct{ File string }
	}
	var got []at
	for _, d := range checkJSON[jsonDiag](t, []byte(r.stdout)) {
		if d.Rule != "R12" {
			continue
		}
		got = append(got, at{d.File, d.Line, d.Column})
		if (d.File == "c.yaml") != (len(d.Related) == 1 && d.Related[0].File == "profiles/big.cue") {
			t.Errorf("json: related of %s: %+v", d.File, d.Related)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("json: R12 at %v, want %v\n%s", got, want, r.stdout)
	}

	r = runUnderCPULimit(t, dir, append([]string{"check", "--format", "sarif"}, inputs...)...)
	wantCode(t, r, 0)
	validateSARIF(t, []byte(r.stdout))
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }                 `json:"artifactLocation"`
						Region           struct{ StartLine, StartColumn int } `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				RelatedLocations []struct {
					PhysicalLocation *struct {
						ArtifactLocation struct{ URI string } `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"relatedLocations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &log); err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, res := range log.Runs[0].Results {
		if res.RuleID != "R12" {
			continue
		}
		pl := res.Locations[0].PhysicalLocation
		got = append(got, at{pl.ArtifactLocation.URI, pl.Region.StartLine, pl.Region.StartColumn})
		rel := res.RelatedLocations
		if (pl.ArtifactLocation.URI == "c.yaml") != (len(rel) == 1 && rel[0].PhysicalLocation != nil && rel[0].PhysicalLocation.ArtifactLocation.URI == "profiles/big.cue") {
			t.Errorf("sarif: related of %s: %+v", pl.ArtifactLocation.URI, rel)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("sarif: R12 at %v, want %v\n%s", got, want, r.stdout)
	}

	r = runUnderCPULimit(t, dir, append([]string{"check", "--format", "github"}, inputs...)...)
	wantCode(t, r, 0)
	for _, w := range []string{
		"::warning file=a.yaml,line=2,col=10,title=R12::cpu_seconds: cpu_seconds 30 is above",
		"::warning file=b.yaml,line=1,title=R12::cpu_seconds: cpu_seconds 30 is above",
		"::warning file=c.yaml,line=2,col=10,title=R12::cpu_seconds: cpu_seconds 600 is above",
		"%0A" + related,
	} {
		wantContains(t, r, "stdout", w)
	}
}
