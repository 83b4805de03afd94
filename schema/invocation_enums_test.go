package schema

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// TestInvocationEnumsFollowFormat holds the invocation schema's enums of
// a precondition's why and scope and of an explanation row's rule equal
// to the format's own lists (invocation.Reasons, invocation.Scopes): a
// reason added in Go and not here (or the reverse) fails, and the
// message is the line to write.
func TestInvocationEnumsFollowFormat(t *testing.T) {
	type props struct {
		Items struct {
			Properties map[string]struct {
				Enum []string `json:"enum"`
			} `json:"properties"`
		} `json:"items"`
	}
	var doc struct {
		Properties struct {
			Preconditions props `json:"preconditions"`
			Explain       props `json:"explain"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(InvocationJSON, &doc); err != nil {
		t.Fatal(err)
	}
	var reasons, scopes []string
	for _, r := range invocation.Reasons {
		reasons = append(reasons, string(r))
	}
	for _, s := range invocation.Scopes {
		if s != invocation.ScopeHost { // the field is left out
			scopes = append(scopes, string(s))
		}
	}
	for _, c := range []struct {
		where string
		got   []string
		want  []string
	}{
		{"preconditions.why", doc.Properties.Preconditions.Items.Properties["why"].Enum, reasons},
		{"preconditions.scope", doc.Properties.Preconditions.Items.Properties["scope"].Enum, scopes},
		{"explain.rule", doc.Properties.Explain.Items.Properties["rule"].Enum, reasons},
	} {
		if len(c.want) == 0 {
			t.Fatalf("%s: the format lists nothing", c.where)
		}
		if !slices.Equal(c.got, c.want) {
			t.Errorf("invocation.schema.json %s enum = %v; the format's list is:\n\"enum\": [\"%s\"]", c.where, c.got, strings.Join(c.want, `", "`))
		}
	}
}
