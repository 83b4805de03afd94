package runtime

import "strings"

// GitCodeKeys are the git configuration variables that make git run a
// program (or read more configuration) that the value names, matched on
// "section.key" with any subsection ("filter.*.smudge" is
// "filter.<driver>.smudge"). A whole section ends in ".*" ("alias.*":
// an alias may run "!sh" or pass "-c core.pager=…"). A value starting
// with "ext::" (a remote-helper URL that runs a shell command) counts
// whatever its key. The post-command scan sets aside any configuration
// file a command could write that holds one of these; git's defaults
// (`git init`, `git clone`, `git worktree add`, `git submodule`) set
// none of them.
var GitCodeKeys = []string{
	"core.fsmonitor", "core.hookspath", "core.sshcommand", "core.editor",
	"core.pager", "core.askpass", "core.gitproxy", "core.alternaterefscommand",
	"alias.*", "pager.*", "include.*", "includeif.*", "hook.*",
	"filter.*", "diff.*.textconv", "diff.*.command", "diff.external", "diff.tool", "diff.guitool",
	"merge.*.driver", "merge.tool", "merge.guitool", "mergetool.*", "difftool.*",
	"credential.*", "sequence.editor", "interactive.difffilter",
	"gpg.*", "sendemail.*", "browser.*", "web.browser", "man.*", "instaweb.*",
	"trailer.*", "protocol.*",
	"remote.*.uploadpack", "remote.*.receivepack", "remote.*.vcs",
	"submodule.*.update", "uploadpack.packobjectshook", "init.templatedir",
}

// gitCodeKey reports whether a configuration entry can make git run
// something the file's writer chose (see GitCodeKeys).
func gitCodeKey(e GitConfigEntry) bool {
	if strings.HasPrefix(strings.TrimSpace(e.Value), "ext::") {
		return true
	}
	section, rest, _ := strings.Cut(e.Key, ".")
	i := strings.LastIndexByte(rest, '.')
	name, hasSub := rest, i >= 0
	if hasSub {
		name = rest[i+1:]
	}
	for _, k := range GitCodeKeys {
		ks, kr, _ := strings.Cut(k, ".")
		if ks != section {
			continue
		}
		switch {
		case kr == "*":
			return true
		case strings.HasPrefix(kr, "*."):
			if hasSub && name == kr[2:] {
				return true
			}
		case !hasSub && kr == name:
			return true
		}
	}
	return false
}

// GitIncludePath returns the path an include or includeIf entry names,
// as written (git resolves a relative one against the including file).
func GitIncludePath(e GitConfigEntry) (string, bool) {
	if e.Bool {
		return "", false
	}
	if e.Key == "include.path" || strings.HasPrefix(e.Key, "includeif.") && strings.HasSuffix(e.Key, ".path") {
		return e.Value, true
	}
	return "", false
}
