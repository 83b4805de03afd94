package facts

import (
	"fmt"
	"os"
	"path"
	"regexp"

	"github.com/bwpolicy/bwpolicy/hazard/privatedir"
	"github.com/bwpolicy/bwpolicy/settings"
)

// SandboxIDPattern is what a sandbox ID (bwpolicy compile --sandbox-id,
// sandbox_id:) must match: one safe path component.
var SandboxIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// TempVars are the temporary-directory variables a private scratch
// directory replaces when they were unset or named the shared scratch.
var TempVars = []string{"TEMP", "TMP", "TMPDIR"}

// StagedRoots are Hermes' staged-data roots, relative to HERMES_HOME:
// files Hermes stages for the model (attachments, documents), readable
// read-only at their host paths.
var StagedRoots = []string{"attachments", "cache/documents"}

// SandboxEnv is one environment's private state (bwpolicy compile
// --sandbox-id): its state directory HERMES_HOME/sandboxes/bwrap-<ID>,
// read-write, and its scratch directory
// HERMES_HOME/cache/scratch/hermes-bwrap-<ID>, the TMPDIR.
type SandboxEnv struct {
	ID      string `json:"id"`
	State   Path   `json:"state"`
	Scratch Path   `json:"scratch"`
	// TempVars holds the values of TempVars set on the host: the private
	// scratch replaces one unset or naming the shared scratch, and
	// leaves one set elsewhere (the compiler's env).
	TempVars map[string]string `json:"-"`
	// TempVarsReal holds, for each of TempVars set to an absolute path,
	// that path with its symlinks resolved: a variable that names the
	// shared scratch by another spelling (through a link to the Hermes
	// home or to a directory above it) is the shared scratch too.
	TempVarsReal map[string]string `json:"-"`
}

// StateDir returns HERMES_HOME/sandboxes/bwrap-<id>.
func StateDir(hermesHome, id string) string {
	return path.Join(hermesHome, "sandboxes", "bwrap-"+id)
}

// ScratchDir returns HERMES_HOME/cache/scratch/hermes-bwrap-<id>.
func ScratchDir(hermesHome, id string) string {
	return path.Join(hermesHome, "cache", "scratch", "hermes-bwrap-"+id)
}

func (g *gatherer) sandboxEnv(h *Host, id string) *SandboxEnv {
	if id == "" || !SandboxIDPattern.MatchString(id) {
		return nil
	}
	return &SandboxEnv{ID: id, State: g.path(StateDir(h.HermesHome, id)), Scratch: g.path(ScratchDir(h.HermesHome, id))}
}

// stagedRoots returns what of each of StagedRoots is bound back: the
// root itself (settings.StagedAll), or its subdirectory named by the
// sandbox ID (settings.StagedSession; the ID is one safe path
// component).
func (g *gatherer) stagedRoots(h *Host, mode, id string) []Path {
	var out []Path
	for _, r := range StagedRoots {
		p := path.Join(h.HermesHome, r)
		if mode == settings.StagedSession {
			p = path.Join(p, id)
		}
		out = append(out, g.path(p))
	}
	return out
}

// MakeSandboxDirs creates this environment's state and scratch
// directories (mode 0700) under hermesHome, never through a symlink
// below it (privatedir.Make). The compile does this on the real
// host before gathering its facts, so both exist to be bound.
func MakeSandboxDirs(hermesHome, id string) error {
	if !SandboxIDPattern.MatchString(id) {
		return fmt.Errorf("sandbox ID %q is not a safe name", id)
	}
	if err := os.MkdirAll(hermesHome, 0o700); err != nil {
		return err
	}
	if err := privatedir.Make(hermesHome, StateDir(hermesHome, id)); err != nil {
		return err
	}
	return privatedir.Make(hermesHome, ScratchDir(hermesHome, id))
}
