package startup

import (
	"slices"
	"testing"
)

// TestPthRunsCode: a .pth line python executes (and the variants a
// review tries: indented, after ";", after a CR, behind a BOM) is code;
// paths and comments are data.
func TestPthRunsCode(t *testing.T) {
	for _, c := range []struct {
		content string
		code    bool
	}{
		{"import os; os.system('x')\n", true},
		{"import\tos\n", true},
		{"  import os\n", true},
		{"\timport os\n", true},
		{"foo; import os\n", true},
		{"/some/path\rimport os\n", true},
		{"\ufeffimport os\n", true},
		{"import os", true},
		{"bad\x00\n", true},
		{"\xff\xfe\n", true},
		{"/home/u/src/pkg\n# import os\n../other\n", false},
		{"importlib_thing\n", false},
		{"/opt/import dir\n", false},
		{"", false},
	} {
		if got := PthRunsCode([]byte(c.content)); got != c.code {
			t.Errorf("PthRunsCode(%q) = %v, want %v", c.content, got, c.code)
		}
	}
	mods := PthModules([]byte("import os; var = 'X'; enabled and __import__('_distutils_hack').add_shim(); \nimport a.b as c, d\nfrom e.f import g\n"))
	for _, m := range []string{"os", "_distutils_hack", "a", "d", "e"} {
		if !slices.Contains(mods, m) {
			t.Errorf("PthModules misses %s: %v", m, mods)
		}
	}
}
