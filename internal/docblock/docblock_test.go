package docblock

import "testing"

func TestReplace(t *testing.T) {
	page := "intro\n<!-- BEGIN x -->\nold\n<!-- END x -->\nrest\n"
	got, err := Replace([]byte(page), "x", "new\nlines\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := "intro\n<!-- BEGIN x -->\nnew\nlines\n<!-- END x -->\nrest\n"; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, bad := range []string{
		"no block\n",
		"<!-- BEGIN x -->\n",
		"<!-- END x --><!-- BEGIN x -->\n",
		"<!-- BEGIN x -->\n<!-- END x -->\n<!-- BEGIN x -->\n<!-- END x -->\n",
	} {
		if _, err := Replace([]byte(bad), "x", "b\n"); err == nil {
			t.Errorf("Replace(%q) accepted it", bad)
		}
	}
}
