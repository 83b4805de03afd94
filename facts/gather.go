package facts

// This file is Gather: the facts stage as an ordered table of steps.
// Each row of the registry (Protections) names the step that finds its
// paths (Protection.Gather); a step that finds a hidden path of a row
// that names another step panics (gatherer.mustGather), and a row whose
// step is not in the table fails TestEveryRowGathered.

import (
	"path"
	"strconv"

	"github.com/bwpolicy/bwpolicy/profile"
	"github.com/bwpolicy/bwpolicy/settings"
)

// Step names one step of Gather.
type Step string

// The steps that find the paths of registry rows.
const (
	StepHiddenPaths       Step = "hiddenPaths"
	StepPasswdHome        Step = "passwdHome"
	StepHide              Step = "expandHide"
	StepSandboxEnv        Step = "sandboxEnv"
	StepProtected         Step = "protectedEntries"
	StepCABundles         Step = "caBundles"
	StepRunUser           Step = "runUser"
	StepDockerSockets     Step = "dockerSockets"
	StepEnvCredentials    Step = "envCredentials"
	StepMovedStores       Step = "movedStores"
	StepPrivilegedSockets Step = "privilegedSockets"
	StepRCSecrets         Step = "rcSecrets"
	StepAllowedSecrets    Step = "allowedSecrets"
	StepUserSockets       Step = "userSockets"
	StepMirrors           Step = "mirrors"
	StepProfileHome       Step = "profileHome"
)

// gathering is what the steps read and write: the host, the settings,
// the profile, and the facts found so far.
type gathering struct {
	h *Host
	s *settings.Settings
	p *profile.Profile
	f *Facts
}

// gatherStep is one step; id is "" for a step that finds no path of a
// row (the working directory, the binds, the home layout, relations).
type gatherStep struct {
	id  Step
	run func(g *gatherer, c *gathering)
}

// gatherSteps is the order of the facts stage. The order matters: the
// working directory needs the hidden paths and the profile home, the home
// layout the hide entries and the binds, the credential searches skip
// what is masked already and look into what is bound back, so the masks
// and exceptions are settled after each search (a search that found
// nothing leaves them as they were).
var gatherSteps = []gatherStep{
	{StepHiddenPaths, func(g *gatherer, c *gathering) { c.f.Hidden = g.hiddenPaths(c.h, c.p) }},
	{StepPasswdHome, func(g *gatherer, c *gathering) { c.f.Hidden = append(c.f.Hidden, g.passwdHome(c.h, c.p)...) }},
	{StepProfileHome, func(g *gatherer, c *gathering) {
		c.f.HomeMode = c.s.HomeMode
		if c.f.HomeMode == "" {
			c.f.HomeMode = "auto"
		}
		c.f.ProfileHome = g.path(path.Join(c.h.HermesHome, "home"))
	}},
	{"", func(g *gatherer, c *gathering) { c.f.Cwd = g.cwd(c.h, c.s, c.f.Hidden, c.f.boundProfileHome()) }},
	{StepHide, func(g *gatherer, c *gathering) {
		if c.f.Cwd.Exists {
			hide, errs := expandHide(g, c.h, c.s, c.f.Cwd.Real)
			c.f.Hidden = append(c.f.Hidden, hide...)
			c.f.HideErrors = errs
		}
	}},
	{"", func(g *gatherer, c *gathering) {
		for i, b := range c.s.Binds {
			c.f.Binds = append(c.f.Binds, g.bind(i, b))
		}
	}},
	{"", gatherHomeLayout},
	{"", func(g *gatherer, c *gathering) { c.f.Scratch = g.path(path.Join(c.h.HermesHome, "cache", "scratch")) }},
	{"", func(g *gatherer, c *gathering) { c.f.StateDirs = g.stateDirs(c.h.HermesHome) }},
	{StepSandboxEnv, func(g *gatherer, c *gathering) {
		c.f.Sandbox = g.sandboxEnv(c.h, c.s.SandboxID)
		if c.f.Sandbox != nil {
			for _, v := range TempVars {
				if val := g.getenv(v); val != "" {
					if c.f.Sandbox.TempVars == nil {
						c.f.Sandbox.TempVars = map[string]string{}
					}
					c.f.Sandbox.TempVars[v] = val
					if path.IsAbs(val) {
						if c.f.Sandbox.TempVarsReal == nil {
							c.f.Sandbox.TempVarsReal = map[string]string{}
						}
						c.f.Sandbox.TempVarsReal[v] = g.path(val).Real
					}
				}
			}
			c.f.StagedSession = c.s.StagedMode() == settings.StagedSession
			c.f.Staged = g.stagedRoots(c.h, c.s.StagedMode(), c.f.Sandbox.ID)
		}
	}},
	{StepProtected, func(g *gatherer, c *gathering) {
		f, cw := c.f, c.p.CwdWritable
		f.Protected, f.ProtectedLooked = g.protectedEntries(c.h, f, cw, protectAllow(c.s), c.s.Protect != nil && c.s.Protect.Git == "read-only")
		f.HomeDotLinks, f.HomeDotLinksTruncated = g.homeDotLinks(g.path(c.h.Home).Real)
		f.Protected = append(heldLinkEntries(f, f.Protected), g.homeLinkTargets(f, cw)...)
		f.Protected = append(f.Protected, g.linkedProtected(f, cw, protectAllow(c.s))...)
		f.WritableProtected = g.writableProtected(c.h, f, cw)
		f.CodeDirNotes = g.codeDirNotes(c.h, writableRoots(f, cw))
	}},
	{StepCABundles, func(g *gatherer, c *gathering) {
		for _, v := range CAVars {
			if val := g.getenv(v); val != "" && path.IsAbs(val) {
				c.f.CABundles = append(c.f.CABundles, CABundle{Var: v, Path: g.path(path.Clean(val))})
			}
		}
	}},
	{StepRunUser, func(g *gatherer, c *gathering) { c.f.RunUser = g.path(path.Join("/run/user", strconv.Itoa(c.h.UID))) }},
	{StepDockerSockets, func(g *gatherer, c *gathering) {
		for _, d := range DockerSockets {
			c.f.DockerSockets = append(c.f.DockerSockets, g.path(d))
		}
	}},
	{StepEnvCredentials, func(g *gatherer, c *gathering) {
		c.settle()
		hidden, skips := g.envCredentials(c.h, c.f)
		c.f.Hidden = append(c.f.Hidden, hidden...)
		c.f.EnvSkips = skips
	}},
	{StepMovedStores, func(g *gatherer, c *gathering) {
		c.settle()
		c.f.Hidden = append(c.f.Hidden, g.movedStores(c.h, c.f)...)
	}},
	{StepPrivilegedSockets, func(g *gatherer, c *gathering) {
		c.settle()
		c.f.Hidden = append(c.f.Hidden, g.privilegedSockets(c.f)...)
	}},
	{StepRCSecrets, func(g *gatherer, c *gathering) {
		c.settle()
		hidden, files := g.rcSecrets(c.h, c.f)
		c.f.Hidden = append(c.f.Hidden, hidden...)
		c.f.SecretFiles = files
	}},
	{StepAllowedSecrets, func(g *gatherer, c *gathering) {
		c.settle()
		hidden, files, notes := g.allowedSecrets(c.h, c.f)
		c.f.Hidden = append(c.f.Hidden, hidden...)
		c.f.SecretFiles = append(c.f.SecretFiles, files...)
		c.f.SecretNotes = notes
	}},
	{StepUserSockets, func(g *gatherer, c *gathering) {
		c.settle()
		hidden, notes := g.userSockets(c.h, c.f)
		c.f.Hidden = append(c.f.Hidden, hidden...)
		c.f.MountNotes = append(c.f.MountNotes, notes...)
	}},
	{StepMirrors, func(g *gatherer, c *gathering) {
		c.settle()
		hidden, notes := g.mirrors(c.f)
		c.f.Hidden = append(c.f.Hidden, hidden...)
		c.f.MountNotes = append(c.f.MountNotes, notes...)
		c.settle()
	}},
	{"", func(g *gatherer, c *gathering) {
		f := c.f
		f.HiddenPresent = hiddenPresent(f.Hidden)
		f.CreatableDenied = creatableDenied(f, c.p.CwdWritable)
		f.HomeChains = g.homeChains(f, c.p.CwdWritable, protectAllow(c.s))
		f.Tracked = g.trackedHidden(c.s, f, c.h.Home)
		relate(f)
		f.DenyingDirs = g.denyingDirs()
	}},
}

// gatherHomeLayout rebuilds the home (H10) once the hide entries and the
// binds are known, and places the working directory and the binds in it.
func gatherHomeLayout(g *gatherer, c *gathering) {
	f := c.f
	f.HomeLayout = g.homeLayout(c.h, c.s, writableRoots(f, c.p.CwdWritable), f.Hidden)
	if !f.Cwd.InProfileHome { // bound back after the layout, like the profile home
		f.Cwd.HomeLeft = f.HomeLayout.LeftEntry(f.Cwd.Real)
	}
	for i := range f.Binds {
		b := &f.Binds[i]
		if b.SrcAbs {
			b.SrcHomeLeft = f.HomeLayout.LeftEntry(b.SrcReal)
		}
		if b.DestAbs {
			b.DestHomeLeft = f.HomeLayout.LeftEntry(b.DestReal)
		}
	}
}

// settle recomputes the masks and exceptions before a search that skips
// what is masked (Facts.settle).
func (c *gathering) settle() { c.f.settle(c.p.CwdWritable && c.f.Cwd.Exists) }

// Gather resolves the host facts for settings s under profile p: the
// steps of gatherSteps in order.
func Gather(h *Host, s *settings.Settings, p *profile.Profile) *Facts {
	// One compile asks about the same paths many times (every path's
	// parents, each protected name's directory): the host is read once
	// per path, and every question about a path gets the same answer.
	fsys := h.FS
	if _, ok := fsys.(*Memo); !ok {
		fsys = NewMemo(fsys)
	}
	g := &gatherer{fs: fsys, observed: make(map[string]Stat, 256), walked: map[string]*Walked{}, host: h}
	f := &Facts{
		UID: h.UID, Home: h.Home, HermesHome: h.HermesHome,
		DefaultHermesHome: path.Join(h.Home, ".hermes"),
		Bwrap:             h.Bwrap, Kernel: h.Kernel, NProcUserns: nprocPerUserns(h.Kernel),
		LandlockABI: h.LandlockABI, Arch: h.Arch, Cloud: h.Cloud, EnvNames: h.EnvNames, EnvValueKinds: h.EnvValueKinds, HardAS: h.HardAS, HardCPU: h.HardCPU, HardNProc: h.HardNProc,
		Observed: g.observed, Walked: g.walked,
	}
	f.EnvChecked = envChecked(h)
	c := &gathering{h: h, s: s, p: p, f: f}
	for _, st := range gatherSteps {
		g.step = st.id
		st.run(g, c)
	}
	g.step = ""
	return f
}

// mustGather panics when the running step of Gather finds a path of
// row, which names another step: a row's Gather is where its paths come
// from.
func (g *gatherer) mustGather(row Protection) {
	if g.step != "" && row.Gather != g.step { // "": a unit test calling one gatherer
		panic("facts: step " + string(g.step) + " found a path of row " + string(row.Source) + ", whose step is " + string(row.Gather))
	}
}

// getenv is the value of the host variable name, which a registry row
// must declare (Protection.Env: FromEnvironment reads those, and bwrun
// re-checks them): reading another panics, so a gatherer cannot depend
// on a variable the real host would never supply.
func (g *gatherer) getenv(name string) string { return g.host.Getenv(name) }
