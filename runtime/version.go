package runtime

import "runtime/debug"

// ModuleVersion is the version a bwpolicy binary reports: override when
// set (a release build's -ldflags "-X main.version=..."), else the main
// module's version from the build information, else "(devel)".
func ModuleVersion(override string) string {
	if override != "" {
		return override
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
