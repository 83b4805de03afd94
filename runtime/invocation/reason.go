package invocation

import (
	"slices"
	"strconv"
)

// This file is the one spelling of why an invocation holds what it
// holds: the reason of a precondition (Precondition.Why), of a group of
// bwrap arguments (Explain.Rule) and of a warning (Warning.Rule). Every
// package that writes or reads an invocation (facts, compiler, verify,
// bwrun) compares these constants, never a string.

// Reason is why an invocation depends on a path or carries an argument:
// a rule of the catalogue ("S5", "H9", "R7"; docs/rules.md), or one of
// the few reasons that name no rule (ReasonBinds, ReasonPathComponent,
// ReasonConfigSource, ReasonRuntime). Its values are part of the
// invocation format; Validate refuses any other.
type Reason string

// The reasons that are rules (the catalogue's IDs and names).
const (
	ReasonLimitsBeforeBwrap     Reason = "S1"
	ReasonNamespaces            Reason = "S2"
	ReasonFilesystem            Reason = "S3"
	ReasonAgentSockets          Reason = "S4"
	ReasonHiddenPaths           Reason = "S5"
	ReasonHermesExceptions      Reason = "S6"
	ReasonPins                  Reason = "S7"
	ReasonCABundles             Reason = "S8"
	ReasonWorkingDirectory      Reason = "S9"
	ReasonNeverUnsandboxed      Reason = "S10"
	ReasonOneSandboxPerCommand  Reason = "S11"
	ReasonDisableUserns         Reason = "H1"
	ReasonSeccomp               Reason = "H2"
	ReasonPortAllowlists        Reason = "H3"
	ReasonUserHidePaths         Reason = "H4"
	ReasonEnvironmentPolicy     Reason = "H5"
	ReasonVerify                Reason = "H6"
	ReasonCredentialLocations   Reason = "H7"
	ReasonPrivilegedHostSockets Reason = "H8"
	ReasonProtectedEntries      Reason = "H9"
	ReasonHomeLayout            Reason = "H10"
	ReasonBindUnderHiddenPath   Reason = "R1"
	ReasonBindContainsHidden    Reason = "R2"
	ReasonWritableBindInside    Reason = "R3"
	ReasonBindDestMustExist     Reason = "R4"
	ReasonCwdIsRoot             Reason = "R5"
	ReasonCwdUnderHiddenPath    Reason = "R6"
	ReasonCwdIsHome             Reason = "R7"
	ReasonProfileHomePlainDir   Reason = "R8"
	ReasonBindPathInvalid       Reason = "R9"
	ReasonBindDestForbidden     Reason = "R10"
	ReasonMaskedAfterBind       Reason = "R11"
	ReasonLimits                Reason = "R12"
	ReasonFloor                 Reason = "R13"
)

// The reasons that name no rule.
const (
	// ReasonBinds: a bind of the settings' binds (Precondition.Bind says
	// which), or the explanation of the bind arguments.
	ReasonBinds Reason = "binds"
	// ReasonPathComponent: a directory on the way to a path the
	// invocation depends on, or an entry the home layout binds back.
	ReasonPathComponent Reason = "path component"
	// ReasonConfigSource: the settings file itself.
	ReasonConfigSource Reason = "config"
	// ReasonRuntime: an argument bwrun needs of bwrap (its status pipe).
	ReasonRuntime Reason = "runtime"
	// ReasonBwrap: the bwrap binary itself (its identity, re-checked by
	// bwrun before each command).
	ReasonBwrap Reason = "bwrap"
)

// Reasons lists every reason, in the catalogue's order: the enum of the
// invocation schema's "why" and "rule" (schema/invocation.schema.json;
// a test holds them equal).
var Reasons = []Reason{
	ReasonLimitsBeforeBwrap, ReasonNamespaces, ReasonFilesystem, ReasonAgentSockets,
	ReasonHiddenPaths, ReasonHermesExceptions, ReasonPins, ReasonCABundles,
	ReasonWorkingDirectory, ReasonNeverUnsandboxed, ReasonOneSandboxPerCommand,
	ReasonDisableUserns, ReasonSeccomp, ReasonPortAllowlists, ReasonUserHidePaths,
	ReasonEnvironmentPolicy, ReasonVerify, ReasonCredentialLocations,
	ReasonPrivilegedHostSockets, ReasonProtectedEntries, ReasonHomeLayout,
	ReasonBindUnderHiddenPath, ReasonBindContainsHidden, ReasonWritableBindInside,
	ReasonBindDestMustExist, ReasonCwdIsRoot, ReasonCwdUnderHiddenPath, ReasonCwdIsHome,
	ReasonProfileHomePlainDir, ReasonBindPathInvalid, ReasonBindDestForbidden,
	ReasonMaskedAfterBind, ReasonLimits, ReasonFloor,
	ReasonBinds, ReasonPathComponent, ReasonConfigSource, ReasonRuntime, ReasonBwrap,
}

// Known reports whether r is one of Reasons.
func (r Reason) Known() bool { return slices.Contains(Reasons, r) }

// IsRule reports whether r is a rule of the catalogue (not one of the
// reasons that name none).
func (r Reason) IsRule() bool {
	switch r {
	case ReasonBinds, ReasonPathComponent, ReasonConfigSource, ReasonRuntime, ReasonBwrap:
		return false
	}
	return r.Known()
}

// Hides reports whether a path of reason r is a candidate hidden path:
// the agent sockets (S4), the home's credential entries and the Hermes
// homes (S5), the settings' hide entries (H4), the credential stores and
// the paths credential variables name (H7), the privileged host sockets
// (H8), what the home layout leaves out that a second mount shows (H10).
func (r Reason) Hides() bool {
	switch r {
	case ReasonAgentSockets, ReasonHiddenPaths, ReasonUserHidePaths, ReasonCredentialLocations,
		ReasonPrivilegedHostSockets, ReasonHomeLayout:
		return true
	}
	return false
}

// Hides reports whether p's path is a candidate hidden path: its
// reason hides (Reason.Hides), and it is not a directory watched for
// what appears in it (ScopeHideListing: a hide glob's matches below it
// are hidden, not the directory; ScopeHomeLayout: HOME, rebuilt by the
// layout, not hidden).
func (p Precondition) Hides() bool {
	return p.Why.Hides() && p.Scope != ScopeHideListing && p.Scope != ScopeHomeLayout
}

// BindsBack reports whether an argument group of reason r may bring a
// path back inside a mask: the Hermes home's scratch, state and profile
// home (S6) and a CA bundle (S8).
func (r Reason) BindsBack() bool {
	return r == ReasonHermesExceptions || r == ReasonCABundles
}

// Scope narrows a precondition's reason to where its path lies; the
// zero Scope is the host at large.
type Scope string

// The scopes.
const (
	ScopeHost Scope = ""
	// ScopeProfileHome: a protected entry (H9) of the profile home
	// (home_mode: profile), which bwrun's post-command scan sets aside
	// when a command created it.
	ScopeProfileHome Scope = "profile-home"
	// ScopeHermesHome: a Hermes home (S5: HERMES_HOME, ~/.hermes).
	ScopeHermesHome Scope = "hermes-home"
	// ScopeHideListing: a directory a hide glob listed (H4; MTime and
	// Match say what a new entry must not be).
	ScopeHideListing Scope = "hide-listing"
	// ScopeHomeLayout: the home layout's HOME (H10): a non-dot entry made
	// after the compile (HomeNewEntries) makes the invocation stale.
	ScopeHomeLayout Scope = "home-layout"
)

// Scopes lists every scope: the enum of the invocation schema's
// "scope".
var Scopes = []Scope{ScopeHost, ScopeProfileHome, ScopeHermesHome, ScopeHideListing, ScopeHomeLayout}

// Known reports whether s is one of Scopes.
func (s Scope) Known() bool { return slices.Contains(Scopes, s) }

// WhyString renders a precondition's reason with its scope and bind, as
// messages show it: "H9 (profile-home)", "binds[2]".
func (p Precondition) WhyString() string {
	switch {
	case p.Why == ReasonBinds:
		return "binds[" + strconv.Itoa(p.Bind) + "]"
	case p.Scope != ScopeHost:
		return string(p.Why) + " (" + string(p.Scope) + ")"
	}
	return string(p.Why)
}
