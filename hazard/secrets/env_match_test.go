package secrets

import (
	"path"
	"testing"
)

// TestMatchNameAgreesWithPathMatch: the fast matcher gives path.Match's
// answer for every pattern and name shape the env policy uses.
func TestMatchNameAgreesWithPathMatch(t *testing.T) {
	patterns := []string{"*_API_KEY", "*_SECRET_*", "*_TOKEN", "AWS_*", "*", "**", "A*B*C", "*_*_*", "EXACT",
		"MY_CORP_*", "*KEY*", "a?c", "[A-Z]*_KEY", "*\\*", "", "*_", "_*"}
	names := []string{"OPENAI_API_KEY", "API_KEY", "_API_KEY", "X_SECRET_Y", "X_SECRET_", "GITHUB_TOKEN", "TOKEN",
		"AWS_REGION", "AWS_", "ABC", "AXBYC", "AC", "A_B_C", "EXACT", "EXACTLY", "MY_CORP_KEY", "KEY", "abc", "",
		"_", "a/b", "A*", "X_SECRET_SECRET_Y", "KEYKEY"}
	for _, p := range patterns {
		for _, n := range names {
			want, err := path.Match(p, n)
			if err != nil {
				want = false
			}
			if got := matchName(p, n); got != want {
				t.Errorf("matchName(%q, %q) = %v, path.Match says %v", p, n, got, want)
			}
		}
	}
}

func FuzzMatchName(f *testing.F) {
	f.Add("*_API_KEY", "OPENAI_API_KEY")
	f.Add("*_SECRET_*", "A_SECRET_B")
	f.Fuzz(func(t *testing.T, p, n string) {
		want, err := path.Match(p, n)
		if err != nil {
			return
		}
		if got := matchName(p, n); got != want {
			t.Fatalf("matchName(%q, %q) = %v, path.Match says %v", p, n, got, want)
		}
	})
}
