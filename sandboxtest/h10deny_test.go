package sandboxtest

import (
	"strings"
	"testing"
)

// H10: deny always wins over what the layout binds back: a home.allow
// entry inside a denied path (.ssh/x, .config/gh/x) and a PATH
// directory inside one (~/.aws/bin) stay hidden (a warning names the
// home.allow ones). Control: ~/.mytool from the same home.allow is
// visible, so the setting took effect.
func testAllowInsideDenied(t *testing.T, f *fixture) {
	f.write(f.expand("{home}/.ssh/x"), "x "+f.marker+"\n")
	f.write(f.expand("{home}/.config/gh/x"), "gh "+f.marker+"\n")
	f.write(f.expand("{home}/.aws/bin/tool"), "tool "+f.marker+"\n")
	f.write(f.expand("{home}/.mytool/conf"), "mytool\n")
	env := []string{"PATH={home}/.aws/bin:/usr/local/bin:/usr/bin:/bin"}
	inv, warnings := f.compile("home: {allow: [.mytool, .ssh/x, .config/gh/x]}\n", call{env: env})
	for _, w := range []string{".ssh/x", ".config/gh/x"} {
		if !strings.Contains(warnings, "[H10]") || !strings.Contains(warnings, w) {
			t.Errorf("no H10 warning for home.allow %s: %q", w, warnings)
		}
	}
	r := f.bwrun(inv, `
ok ssh_x 'cat {home}/.ssh/x'
ok gh_x 'cat {home}/.config/gh/x'
ok aws_tool 'cat {home}/.aws/bin/tool'
val mytool 'cat {home}/.mytool/conf'
`, call{env: env})
	f.expect(r, want{"ssh_x": "no", "gh_x": "no", "aws_tool": "no", "mytool": "mytool"})
}
