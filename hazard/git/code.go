package git

import "strings"

// CodeKeys are the git configuration variables that make git run a
// program (or read more configuration) that the value names, matched on
// "section.key" with any subsection ("filter.*.smudge" is
// "filter.<driver>.smudge"). A whole section ends in ".*" ("alias.*":
// an alias may run "!sh" or pass "-c core.pager=…"). A value starting
// with "ext::" (a remote-helper URL that runs a shell command) counts
// whatever its key. The post-command scan sets aside any configuration
// file a command could write that holds one of these; git's defaults
// (`git init`, `git clone`, `git worktree add`, `git submodule`) set
// none of them.
var CodeKeys = []string{
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
	// Outside git-config(1): git archive's tar.<format>.command, git
	// imap-send's tunnel, git gui's tools, git svn's authorsProg, git
	// lfs's transfer agents and extensions.
	"tar.*.command", "imap.tunnel", "guitool.*", "help.browser",
	"svn.*", "svn-remote.*", "lfs.*",
}

// CodeSuffixes catch, whatever the section, the keys named as git
// and its tools name a program to run (tar.<format>.command,
// guitool.<name>.cmd, gpg.<format>.program, svn.authorsProg,
// core.sshCommand, credential.helper, merge.<driver>.driver): a key git
// or a tool adds later under such a name is a finding before it is
// listed. git's own defaults (init, clone, submodule, worktree) write
// no key so named.
var CodeSuffixes = []string{"command", "cmd", "program", "prog", "tunnel", "helper",
	"driver", "textconv", "editor", "pager", "askpass", "hook", "hookspath"}

// CodeKey reports whether a configuration entry can make git run
// something the file's writer chose (see CodeKeys).
func CodeKey(e ConfigEntry) bool {
	if strings.HasPrefix(strings.TrimSpace(e.Value), "ext::") {
		return true
	}
	section, rest, _ := strings.Cut(e.Key, ".")
	i := strings.LastIndexByte(rest, '.')
	name, hasSub := rest, i >= 0
	if hasSub {
		name = rest[i+1:]
	}
	for _, k := range CodeKeys {
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
	for _, suf := range CodeSuffixes {
		if strings.HasSuffix(name, suf) {
			return true
		}
	}
	return false
}

// IncludePath returns the path an include or includeIf entry names,
// as written (git resolves a relative one against the including file).
func IncludePath(e ConfigEntry) (string, bool) {
	if e.Bool {
		return "", false
	}
	if e.Key == "include.path" || strings.HasPrefix(e.Key, "includeif.") && strings.HasSuffix(e.Key, ".path") {
		return e.Value, true
	}
	return "", false
}
