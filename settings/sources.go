package settings

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/bwpolicy/bwpolicy/diag"
)

// RuleConfigSource is the rule ID of the diagnostics about where the
// settings of a Hermes config came from (a lower source used, two
// sources set at once, a key that moved).
const RuleConfigSource = "config"

// settingsSources are the places a Hermes config keeps the sandbox
// settings, highest first: the backend's block, where Hermes' setup and
// Dashboard write a terminal backend's settings (terminal.backends.NAME,
// from the provider's config schema), then this plugin's own namespace,
// then Hermes' official bubblewrap plugin's (same keys, so switching
// backends is one line). Below them come the PR-era terminal.bubblewrap_* keys and their
// TERMINAL_BUBBLEWRAP_* environment variables (legacyKeys).
var settingsSources = [][]string{
	{"terminal", "backends", "bwpolicy"},
	{"plugins", "entries", "bwpolicy", "settings"},
	{"plugins", "entries", "bubblewrap", "settings"},
}

// legacyKey is one PR-era terminal.bubblewrap_* key: its settings key
// path, and how its environment variable is read.
type legacyKey struct {
	suffix string   // after "bubblewrap_"
	path   []string // settings key path
	json   bool     // the environment variable holds JSON (a list)
	number bool     // the environment variable holds an integer
}

var legacyKeys = []legacyKey{
	{suffix: "profile", path: []string{"profile"}},
	{suffix: "memory_mb", path: []string{"memory_mb"}, number: true},
	{suffix: "cpu_seconds", path: []string{"cpu_seconds"}, number: true},
	{suffix: "max_procs", path: []string{"max_procs"}, number: true},
	{suffix: "binds", path: []string{"binds"}, json: true},
	{suffix: "hide", path: []string{"hide"}, json: true},
	{suffix: "home_allow", path: []string{"home", "allow"}, json: true},
}

// LookupEnv reads the TERMINAL_BUBBLEWRAP_* variables; tests replace it.
var LookupEnv = os.LookupEnv

// HomeModeAliases are the other spellings Hermes accepts for
// home_mode: profile.
var HomeModeAliases = map[string]string{"isolated": "profile", "profile_home": "profile", "profile-home": "profile"}

// pluginSettings picks the settings mapping of a Hermes config: the
// highest source that is set. It returns the mapping (nil when only the
// PR-era keys or none are set), the path it came from, and the
// diagnostics: a lower source used, or several set at once.
func (d *Document) pluginSettings(top map[string]any) (map[string]any, []string, diag.List) {
	var ds diag.List
	var chosen map[string]any
	var chosenPath []string
	for _, p := range settingsSources {
		m, found, bad := lookupMap(top, p)
		if bad != nil {
			bad.Pos = d.lookupPos(strings.Split(bad.Path, "."))
			return nil, nil, diag.List{*bad}
		}
		if !found {
			continue
		}
		if chosen == nil {
			chosen, chosenPath = m, p
			continue
		}
		ds.Add(diag.Diagnostic{Severity: diag.Warning, Rule: RuleConfigSource, Pos: d.lookupPos(p), Path: strings.Join(p, "."),
			Summary: fmt.Sprintf("ignored: %s is set too and wins", strings.Join(chosenPath, ".")),
			Detail:  "Keep one settings block: delete this one, or move what it needs into " + strings.Join(chosenPath, ".") + "."})
	}
	if chosenPath != nil && chosenPath[2] != "bwpolicy" {
		ds.Add(diag.Diagnostic{Severity: diag.Warning, Rule: RuleConfigSource, Pos: d.lookupPos(chosenPath), Path: strings.Join(chosenPath, "."),
			Summary: "Hermes' bubblewrap plugin's settings, applied: this backend's own are terminal.backends.bwpolicy",
			Detail:  "Rename the block to terminal.backends.bwpolicy (same keys).",
			Fix:     "terminal:\n  backends:\n    bwpolicy: # the keys of " + strings.Join(chosenPath, ".") + "\n"})
	}
	return chosen, chosenPath, ds
}

// legacySettings reads the PR-era terminal.bubblewrap_* keys, else their
// TERMINAL_BUBBLEWRAP_* variables, into a settings mapping. used says
// whether any was set; each one set is a diagnostic naming the key to
// write instead (ignored, with a warning, when a higher source is set).
func (d *Document) legacySettings(top map[string]any, higher []string) (out map[string]any, used bool, ds diag.List) {
	out = map[string]any{}
	term, _ := top["terminal"].(map[string]any)
	for _, k := range legacyKeys {
		key := "bubblewrap_" + k.suffix
		env := "TERMINAL_" + strings.ToUpper(key)
		newKey := "plugins.entries.bwpolicy.settings." + strings.Join(k.path, ".")
		var v any
		var pos diag.Pos
		from := "terminal." + key
		if tv, ok := term[key]; ok && tv != nil {
			v, pos = tv, d.lookupPos([]string{"terminal", key})
		} else if ev, ok := LookupEnv(env); ok && ev != "" {
			from, pos = "$"+env, diag.Pos{File: d.File}
			var err error
			if v, err = envValue(ev, k); err != nil {
				ds.Add(diag.Diagnostic{Severity: diag.Error, Rule: "schema", Pos: pos, Path: from, Summary: from + ": " + err.Error()})
				continue
			}
		} else {
			continue
		}
		if higher != nil {
			ds.Add(diag.Diagnostic{Severity: diag.Warning, Rule: RuleConfigSource, Pos: pos, Path: from,
				Summary: fmt.Sprintf("PR-era setting ignored: %s is set and wins", strings.Join(higher, ".")),
				Detail:  "Delete it, or move it to " + newKey + "."})
			continue
		}
		used = true
		fix, _ := json.Marshal(v)
		ds.Add(diag.Diagnostic{Severity: diag.Warning, Rule: RuleConfigSource, Pos: pos, Path: from,
			Summary: fmt.Sprintf("PR-era setting, applied: write %s instead", newKey),
			Detail:  "hermes config set " + newKey + " '" + string(fix) + "'",
			Fix:     newKey + ": " + string(fix)})
		setPath(out, k.path, v)
	}
	return out, used, ds
}

func envValue(s string, k legacyKey) (any, error) {
	switch {
	case k.number:
		if _, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err != nil {
			return nil, fmt.Errorf("want an integer, got %q", s)
		}
		return json.Number(strings.TrimSpace(s)), nil
	case k.json:
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("want a JSON list: %v", err)
		}
		return v, nil
	}
	return s, nil
}

// lookupMap follows keys from top; found is false when a key is absent
// or null. A value on the way that is not a mapping is an error, whose
// Path holds the keys not reached.
func lookupMap(top map[string]any, keys []string) (map[string]any, bool, *diag.Diagnostic) {
	var cur any = top
	for i, k := range keys {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false, &diag.Diagnostic{Severity: diag.Error, Rule: "schema", Summary: "must be a mapping", Path: strings.Join(keys[:i], ".")}
		}
		cur, ok = m[k]
		if !ok || cur == nil {
			return nil, false, nil
		}
	}
	m, ok := cur.(map[string]any)
	if !ok {
		return nil, false, &diag.Diagnostic{Severity: diag.Error, Rule: "schema", Summary: "must be a mapping", Path: strings.Join(keys, ".")}
	}
	return m, true, nil
}

func setPath(m map[string]any, keys []string, v any) {
	for _, k := range keys[:len(keys)-1] {
		sub, ok := m[k].(map[string]any)
		if !ok {
			sub = map[string]any{}
			m[k] = sub
		}
		m = sub
	}
	m[keys[len(keys)-1]] = v
}

// normalizeHomeMode maps Hermes' other spellings of home_mode: profile.
func normalizeHomeMode(values map[string]any) {
	if s, ok := values["home_mode"].(string); ok {
		if canon, ok := HomeModeAliases[s]; ok {
			values["home_mode"] = canon
		}
	}
}
