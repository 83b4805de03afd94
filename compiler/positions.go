package compiler

import "github.com/bwpolicy/bwpolicy/diag"

// flagOf names the command-line flag that overrode settings key key in
// this request ("--profile"), "" when the value is the settings file's.
func (st *state) flagOf(key string) string {
	switch r := st.req; {
	case key == "profile" && r.Profile != "":
		return "--profile"
	case key == "cwd" && r.Cwd != "":
		return "--cwd"
	case key == "sandbox_id" && r.SandboxID != "":
		return "--sandbox-id"
	}
	return ""
}

// settingsPos is where the settings value at path comes from: the flag
// that overrode its key, else its place in the settings document, else
// (the settings do not set the key) defaultPos.
func (st *state) settingsPos(path ...any) diag.Pos {
	doc := st.res.Document
	if len(path) > 0 {
		if k, ok := path[0].(string); ok {
			if f := st.flagOf(k); f != "" {
				return diag.CommandLine(f)
			}
			if doc != nil && !doc.Has(k) {
				return st.defaultPos(k)
			}
		}
	}
	if doc == nil {
		return diag.Pos{File: st.req.File}
	}
	return doc.Pos(path)
}

// profileDefaults are the settings keys whose default is the profile's
// (its defaults block).
var profileDefaults = map[string]bool{"memory_mb": true, "cpu_seconds": true, "max_procs": true}

// defaultPos is where a value the settings leave to its default is
// blamed. A limit's default is the profile's: the place that selected the
// profile (--profile, or the settings' profile: line). Anything else, and
// the profile when the settings do not name one, is the settings file as
// a whole (its line 1). Never the profile's own file: a built-in profile
// is no file of the user's, and the settings are what the user edits to
// change the value.
func (st *state) defaultPos(key string) diag.Pos {
	if profileDefaults[key] {
		return st.settingsPos("profile")
	}
	return st.res.Document.FilePos()
}
