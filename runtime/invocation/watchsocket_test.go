package invocation

import "testing"

// TestIsWatchSocketTemp: the watcher's temporary socket names, and
// look-alikes that are not.
func TestIsWatchSocketTemp(t *testing.T) {
	for p, want := range map[string]bool{
		"/var/tmp/x/inv-1.json.watch.sock.new23878":            true,
		"/home/u/.hermes/sandboxes/b/inv.json.watch.sock.new1": true,
		"/var/tmp/x/inv-1.json.watch.sock":                     false,
		"/var/tmp/x/inv-1.json.watch.sock.new":                 false,
		"/var/tmp/x/inv-1.json.watch.sock.new12a":              false,
		"/var/tmp/agent.sock":                                  false,
		"/.watch.sock.new1":                                    false,
	} {
		if got := IsWatchSocketTemp(p); got != want {
			t.Errorf("IsWatchSocketTemp(%q) = %v, want %v", p, got, want)
		}
	}
	if p := WatchSocketTemp("/var/tmp/x/inv-1.json.watch.sock", 7); !IsWatchSocketTemp(p) {
		t.Errorf("WatchSocketTemp gives %q, which IsWatchSocketTemp does not recognise", p)
	}
}
