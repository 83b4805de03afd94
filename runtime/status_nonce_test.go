package runtime

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestStatusNonce: --nonce is parsed, bounded and echoed in the status
// JSON; without it the key is absent (a caller that asked for one and
// finds none has no proof the report is its run's).
func TestStatusNonce(t *testing.T) {
	ok := strings.Repeat("aZ9_-", 25) + "abc" // 128 characters
	f, rest, err := ParseRunFlags([]string{"--nonce", ok, "inv.json", "--", "true"})
	if err != nil || f.Nonce != ok || len(rest) != 3 {
		t.Fatalf("ParseRunFlags(--nonce %s) = %+v, %v, %v", ok, f, rest, err)
	}
	if f, _, err := ParseRunFlags([]string{"--nonce=abc", "inv.json"}); err != nil || f.Nonce != "abc" {
		t.Fatalf("--nonce=abc: %+v, %v", f, err)
	}
	for _, bad := range [][]string{
		{"--nonce", ""},
		{"--nonce", ok + "x"},
		{"--nonce", "a b"},
		{"--nonce", "a\"b"},
		{"--nonce", "é"},
		{"--nonce", "a", "--nonce", "b"},
		{"--nonce"},
	} {
		if _, _, err := ParseRunFlags(append(bad, "inv.json", "--", "true")); err == nil {
			t.Errorf("ParseRunFlags(%q) accepted", bad)
		}
	}
	var m map[string]any
	if err := json.Unmarshal(Status{Outcome: OutcomeExited, Nonce: "n-1"}.JSON(), &m); err != nil || m["nonce"] != "n-1" {
		t.Fatalf("status with a nonce: %v, %v", m, err)
	}
	m = nil
	if err := json.Unmarshal(Status{Outcome: OutcomeExited}.JSON(), &m); err != nil {
		t.Fatal(err)
	}
	if _, has := m["nonce"]; has {
		t.Fatalf("status without a nonce has the key: %v", m)
	}
}
