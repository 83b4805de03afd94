package facts

import (
	"encoding/json"
	"sync"

	"github.com/bwpolicy/bwpolicy/profile"
	"github.com/bwpolicy/bwpolicy/settings"
)

// Cache remembers the facts Gather found for one host, by the part of
// the settings and profile that Gather reads (gatherKey), so that
// `bwpolicy check` of many settings files that differ in what the host
// does not decide (limits, the environment and network policies …)
// gathers each host's facts once. The facts it hands out are shared:
// nothing may change them. Safe for concurrent use.
type Cache struct {
	mu   sync.Mutex
	m    map[string]*cacheEntry
	held map[*Facts]bool // the facts it handed out
}

type cacheEntry struct {
	once  sync.Once
	facts *Facts
}

// maxCached bounds a Cache; past it, Gather gathers without remembering
// (and compiler.Lint, which remembers only by the facts a Cache holds,
// remembers nothing of those files). Each working directory's facts
// include the home's: 2,000 settings files that each differ in a
// gathered field peaked at 952 MB with 1,024 entries and at 458 MB with
// 256 (same CPU time); files past the bound are gathered each time.
const maxCached = 256

// NewCache returns an empty Cache.
func NewCache() *Cache { return &Cache{m: map[string]*cacheEntry{}, held: map[*Facts]bool{}} }

// Holds reports whether f is facts c handed out (and holds: shared, never
// changed, as long as c lives): what a cache of c's users may key by
// pointer without keeping more facts alive than c does.
func (c *Cache) Holds(f *Facts) bool {
	if c == nil || f == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.held[f]
}

// Gather is Gather(h, s, p), once per distinct gatherKey. h must be the
// same host, and p a profile of the same profile.Set, for every call.
func (c *Cache) Gather(h *Host, s *settings.Settings, p *profile.Profile) *Facts {
	key, ok := gatherKey(s, p)
	if !ok {
		return Gather(h, s, p)
	}
	c.mu.Lock()
	e, hit := c.m[key]
	if !hit {
		if len(c.m) >= maxCached {
			c.mu.Unlock()
			return Gather(h, s, p)
		}
		e = &cacheEntry{}
		c.m[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() {
		e.facts = Gather(h, s, p)
		c.mu.Lock()
		c.held[e.facts] = true
		c.mu.Unlock()
	})
	return e.facts
}

// gatherInput is what Gather reads of the settings and the profile.
// TestGatherKeyCoversSettings holds it complete: every settings field is
// here or in gatherIgnores.
type gatherInput struct {
	Binds     []settings.Bind
	Cwd       string
	HomeMode  string
	SandboxID string
	Staged    string
	Hide      []string
	Protect   *settings.ProtectPolicy
	Home      *settings.HomePolicy
	// The profile, by name and file: one Cache serves the profiles of
	// one profile.Set, where they name one profile each, whose fields
	// differ only by the limits merged over its defaults, which Gather
	// does not read.
	ProfileName, ProfileSource string
}

// gatherIgnores are the settings fields Gather does not read: two
// settings that differ only in them have the same facts.
var gatherIgnores = []string{"Profile", "MemoryMB", "CPUSeconds", "MaxProcs", "TmpMB", "DegradedMode", "SandboxDir", "Env", "Seccomp", "Network"}

// gatherKey is the cache key of s and p; false when the facts must be
// gathered afresh (a sandbox ID: Gather's caller creates its
// directories first).
func gatherKey(s *settings.Settings, p *profile.Profile) (string, bool) {
	if s == nil || p == nil || s.SandboxID != "" {
		return "", false
	}
	b, err := json.Marshal(gatherInput{Binds: s.Binds, Cwd: s.Cwd, HomeMode: s.HomeMode, SandboxID: s.SandboxID, Staged: s.Staged,
		Hide: s.Hide, Protect: s.Protect, Home: s.Home, ProfileName: p.Name, ProfileSource: p.Source})
	if err != nil {
		return "", false
	}
	return string(b), true
}
