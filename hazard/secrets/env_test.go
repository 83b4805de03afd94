package secrets

import (
	"reflect"
	"strings"
	"testing"
)

// TestFilterEnv: names and values go (any case), env.allow keeps one on
// purpose, env.strip patterns match without regard to case, and
// byValue names what went for its value alone.
func TestFilterEnv(t *testing.T) {
	environ := []string{"PATH=/bin", "openai_api_key=x", "HTTPS_PROXY=http://u:pw@proxy:3128", "API_KEY=k",
		"NOTES=ghp_" + strings.Repeat("a", 36), "MY_CORP_THING=1", "KEEP_TOKEN=t", "LANG=C", "SSH_AUTH_SOCK=/s"}
	out, byValue := FilterEnv(environ, EnvPolicy{Unset: []string{"SSH_AUTH_SOCK"}, UnsetPatterns: []string{"my_corp_*"},
		Allow: []string{"keep_token"}, Set: map[string]string{"TMPDIR": "/tmp"}})
	want := []string{"PATH=/bin", "KEEP_TOKEN=t", "LANG=C", "TMPDIR=/tmp"}
	if strings.Join(out, "|") != strings.Join(want, "|") {
		t.Errorf("FilterEnv:\n got %q\nwant %q", out, want)
	}
	if len(byValue) != 2 || byValue[0].Name != "HTTPS_PROXY" || byValue[0].What != "a URL with a password" || byValue[1].Name != "NOTES" {
		t.Errorf("byValue = %+v", byValue)
	}
	// env.allow keeps a value-matched variable too.
	out, byValue = FilterEnv([]string{"HTTPS_PROXY=http://u:pw@proxy"}, EnvPolicy{Allow: []string{"HTTPS_PROXY"}})
	if len(out) != 1 || len(byValue) != 0 {
		t.Errorf("allowed HTTPS_PROXY: out %q byValue %v", out, byValue)
	}
}

func TestBuildEnv(t *testing.T) {
	environ := []string{"PATH=/bin", "SSH_AUTH_SOCK=/run/x", "GH_TOKEN=a", "NPM_TOKEN=b", "MY_API_KEY=c", "HOME=/h", "TMPDIR=/old", "EMPTY="}
	got := BuildEnv(environ, EnvPolicy{
		Unset:         []string{"SSH_AUTH_SOCK", "GH_TOKEN"},
		UnsetPatterns: []string{"*_TOKEN", "*_API_KEY"},
		Allow:         []string{"GH_TOKEN", "MY_API_KEY"},
		Set:           map[string]string{"TMPDIR": "/tmp/x", "A": "1"},
	})
	// Allow does not override an explicit Unset; Set replaces in place of
	// the old value and comes last, sorted.
	want := []string{"PATH=/bin", "MY_API_KEY=c", "HOME=/h", "EMPTY=", "A=1", "TMPDIR=/tmp/x"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("BuildEnv:\n got %q\nwant %q", got, want)
	}
}
