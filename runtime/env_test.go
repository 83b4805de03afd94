package runtime

import (
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// TestFilterEnv: names and values go (any case), env.allow keeps one on
// purpose, env.strip patterns match without regard to case, and
// byValue names what went for its value alone.
func TestFilterEnv(t *testing.T) {
	environ := []string{"PATH=/bin", "openai_api_key=x", "HTTPS_PROXY=http://u:pw@proxy:3128", "API_KEY=k",
		"NOTES=ghp_" + strings.Repeat("a", 36), "MY_CORP_THING=1", "KEEP_TOKEN=t", "LANG=C", "SSH_AUTH_SOCK=/s"}
	out, byValue := FilterEnv(environ, invocation.Env{Unset: []string{"SSH_AUTH_SOCK"}, UnsetPatterns: []string{"my_corp_*"},
		Allow: []string{"keep_token"}, Set: map[string]string{"TMPDIR": "/tmp"}})
	want := []string{"PATH=/bin", "KEEP_TOKEN=t", "LANG=C", "TMPDIR=/tmp"}
	if strings.Join(out, "|") != strings.Join(want, "|") {
		t.Errorf("FilterEnv:\n got %q\nwant %q", out, want)
	}
	if len(byValue) != 2 || byValue[0].Name != "HTTPS_PROXY" || byValue[0].What != "a URL with a password" || byValue[1].Name != "NOTES" {
		t.Errorf("byValue = %+v", byValue)
	}
	// env.allow keeps a value-matched variable too.
	out, byValue = FilterEnv([]string{"HTTPS_PROXY=http://u:pw@proxy"}, invocation.Env{Allow: []string{"HTTPS_PROXY"}})
	if len(out) != 1 || len(byValue) != 0 {
		t.Errorf("allowed HTTPS_PROXY: out %q byValue %v", out, byValue)
	}
	var warned []string
	filterEnvWarn(environ, invocation.Env{}, func(m string) { warned = append(warned, m) })
	if len(warned) != 1 || !strings.Contains(warned[0], "HTTPS_PROXY (a URL with a password)") || strings.Contains(warned[0], "pw@") {
		t.Errorf("warnings %q", warned)
	}
}
