package runtime

import (
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// TestFilterEnvWarn: the launcher says once what it removed for its
// value, by name and kind, never the value.
func TestFilterEnvWarn(t *testing.T) {
	environ := []string{"PATH=/bin", "HTTPS_PROXY=http://u:pw@proxy:3128", "NOTES=ghp_" + strings.Repeat("a", 36)}
	var warned []string
	filterEnvWarn(environ, invocation.Env{}, func(m string) { warned = append(warned, m) })
	if len(warned) != 1 || !strings.Contains(warned[0], "HTTPS_PROXY (a URL with a password)") || strings.Contains(warned[0], "pw@") {
		t.Errorf("warnings %q", warned)
	}
}
