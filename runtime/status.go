package runtime

import (
	"encoding/json"
	"errors"
	"sort"
)

// Outcomes of a run, as the status channel reports them.
const (
	// OutcomeExited: the command ran and bwrap reported its exit status
	// (as trustworthy as the sandbox's first process, which the command
	// can take over: see docs/protections.md, S11).
	OutcomeExited = "exited"
	// OutcomeSignaled: a signal the caller sent (relayed by the runtime)
	// or a cancelled context ended the run.
	OutcomeSignaled = "signaled"
	// OutcomeSetupFailed: the sandbox could not be set up, or the command
	// could not be executed in it (statuses 125, 126, 127).
	OutcomeSetupFailed = "setup-failed"
	// OutcomeStale: the host changed since the compile; nothing ran.
	// Recompile and run again.
	OutcomeStale = "stale"
	// OutcomeTimeout: Options.Timeout expired; the sandbox was killed.
	OutcomeTimeout = "timeout"
)

// Status is the report of one run: what `bwrun --status-fd` writes, one
// JSON object per run (schema/status.schema.json). Outcome, StalePaths,
// SetAside and Warnings are the runtime's own findings, which the command
// cannot forge.
type Status struct {
	Outcome string `json:"outcome"`
	// ExitStatus is the status the runtime exits with.
	ExitStatus int `json:"exit_status"`
	// StalePaths: with OutcomeStale, the paths that changed since the
	// compile; otherwise paths the command created that make the next run
	// stale (H9: a new .git/config, ...).
	StalePaths []string `json:"stale_paths"`
	// SetAside lists what the runtime's post-command checks moved out of
	// the way (empty unless such a check found something).
	SetAside []string `json:"set_aside"`
	// Warnings are the runtime's warnings of this run, one line each.
	Warnings []string `json:"warnings"`
	// Message is the runtime's error message, empty when none.
	Message string `json:"message"`
	// Nonce is the caller's --nonce, echoed (omitted when none).
	Nonce string `json:"nonce,omitempty"`
}

// JSON returns the Status as one line of JSON with a trailing newline.
func (s Status) JSON() []byte {
	for _, l := range []*[]string{&s.StalePaths, &s.SetAside, &s.Warnings} {
		if *l == nil {
			*l = []string{}
		}
	}
	b, _ := json.Marshal(s) // cannot fail: strings and ints only
	return append(b, '\n')
}

// status builds the run's Status from its exit status and error.
func (r *runner) status(code int, err error) Status {
	st := Status{Outcome: OutcomeExited, ExitStatus: code, Warnings: r.warnings,
		StalePaths: append(append([]string(nil), r.created...), r.scan.StalePaths...)}
	for _, a := range r.scan.SetAside {
		st.SetAside = append(st.SetAside, a.Path+" -> "+a.As+" ("+a.Why+")")
	}
	if err != nil {
		st.Message = err.Error()
	}
	var stale *StaleError
	var setup *SetupError
	switch {
	case r.timedOut:
		st.Outcome = OutcomeTimeout
	case errors.As(err, &stale):
		st.Outcome = OutcomeStale
		st.StalePaths = stalePaths(stale)
	case r.ctxErr != nil:
		st.Outcome = OutcomeSignaled
	case errors.As(err, &setup) || (err != nil && code == ExitSetup):
		st.Outcome = OutcomeSetupFailed
	case r.nsig > 0 && code == 128+int(r.sig):
		st.Outcome = OutcomeSignaled
	}
	return st
}

// stalePaths lists the paths of a StaleError's mismatches, each once.
func stalePaths(e *StaleError) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range e.Mismatches {
		p := m.Precondition.Path
		if m.EnvPath != "" {
			p = m.EnvPath
		}
		if m.NewEntry != "" && p != "" {
			p = p + "/" + m.NewEntry
		}
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
