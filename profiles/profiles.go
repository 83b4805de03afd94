// Package profiles holds the three built-in sandbox profiles (restricted,
// workspace, network) as CUE files, embedded in the binary. Each unifies
// with #Profile of package schema; see package profile for loading.
package profiles

import "embed"

// FS holds restricted.cue, workspace.cue and network.cue.
//
//go:embed *.cue
var FS embed.FS

// Names lists the built-in profiles.
var Names = []string{"restricted", "workspace", "network"}
