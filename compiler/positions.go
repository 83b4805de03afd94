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
// that overrode its key, else its place in the settings document.
func (st *state) settingsPos(path ...any) diag.Pos {
	if len(path) > 0 {
		if k, ok := path[0].(string); ok {
			if f := st.flagOf(k); f != "" {
				return diag.CommandLine(f)
			}
		}
	}
	return st.res.Document.Pos(path)
}
