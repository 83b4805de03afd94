package runtime

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// ApplyChdir makes the command start in dir (bwrun --chdir: the caller's
// tracked directory) instead of the compiled working directory, by
// changing the value of the invocation's own --chdir argument; nothing
// else of the arguments changes, and the runtime's checks of the
// arguments run after it. dir must be absolute.
//
// dir must show, in the sandbox, a directory of the host: where the
// sandbox hides it (inv.Hidden), mounts something of its own there (the
// private /tmp, /dev, /proc), or the host has no directory at the path
// the sandbox shows there, the command starts in the compiled working
// directory instead, and the returned note says so. A directory outside
// the writable set is used as it is (the command runs there read-only),
// with a note. A directory the home layout rebuilds (HOME, ~/.config:
// Invocation.Home) is a visible, read-only place of its own: `--chdir ~`
// runs in HOME, read-only, as Hermes' backend does.
func ApplyChdir(inv *invocation.Invocation, dir string) (note string, err error) {
	if !filepath.IsAbs(dir) || strings.ContainsRune(dir, 0) {
		return "", fmt.Errorf("--chdir %q: not an absolute path", dir)
	}
	dir = filepath.Clean(dir)
	at := -1
	for i := 0; i+1 < len(inv.Bwrap.Args); i++ {
		if inv.Bwrap.Args[i] == "--chdir" {
			at = i + 1
		}
	}
	if at < 0 {
		return "", fmt.Errorf("--chdir %s: the invocation has no --chdir of its own to replace; recompile with `bwpolicy compile`", dir)
	}
	if dir == inv.Chdir {
		return "", nil
	}
	fallback := func(why string) (string, error) {
		return fmt.Sprintf("--chdir %s: %s; the command starts in %s instead", dir, why, inv.Chdir), nil
	}
	for _, h := range inv.Hidden {
		if invocation.Within(dir, h) {
			return fallback("the sandbox hides it")
		}
	}
	var layout []string
	if inv.Home != nil {
		layout = inv.Home.Dirs
	}
	host, why := hostDirAt(inv.Bwrap.Args, dir, layout)
	if why != "" {
		return fallback(why)
	}
	if st, err := os.Stat(host); err != nil || !st.IsDir() {
		return fallback("no such directory")
	}
	args := append([]string(nil), inv.Bwrap.Args...)
	args[at] = dir
	inv.Bwrap.Args = args
	inv.Chdir = dir
	for _, w := range inv.Writable {
		if invocation.Within(dir, w) {
			return "", nil
		}
	}
	return fmt.Sprintf("--chdir %s: outside the sandbox's writable directories; the command runs there read-only", dir), nil
}

// hostDirAt returns the host path the sandbox shows at dir, following
// bwrap's mounts in order (the last one covering dir wins), or why it
// shows none. A tmpfs mounted exactly at one of layout (the home
// layout's rebuilt directories) shows that directory: the host path is
// dir itself, whose entries the layout binds back.
func hostDirAt(args []string, dir string, layout []string) (host, why string) {
	host, why = "", "the sandbox's root does not show the host there"
	for i := 0; i < len(args); i++ {
		opt := args[i]
		n, ok := invocation.BwrapArity(opt)
		if !ok || i+n >= len(args) {
			return "", fmt.Sprintf("cannot follow bwrap option %q of the invocation", opt)
		}
		v := args[i+1 : i+1+n]
		i += n
		switch opt {
		case "--bind", "--ro-bind", "--dev-bind", "--bind-try", "--ro-bind-try", "--dev-bind-try":
			if invocation.Within(dir, v[1]) {
				host, why = filepath.Join(v[0], strings.TrimPrefix(dir, v[1])), ""
			}
		case "--tmpfs", "--dev", "--proc", "--mqueue":
			switch {
			case opt == "--tmpfs" && v[0] == dir && slices.Contains(layout, dir):
				host, why = dir, ""
			case invocation.Within(dir, v[0]):
				host, why = "", "it lies in the sandbox's private "+v[0]
			}
		case "--file", "--bind-data", "--ro-bind-data", "--bind-fd", "--ro-bind-fd", "--symlink":
			if invocation.Within(dir, v[1]) {
				host, why = "", "the sandbox replaces "+v[1]
			}
		case "--overlay", "--tmp-overlay", "--ro-overlay":
			if invocation.Within(dir, v[n-1]) {
				host, why = "", "it lies in an overlay of the sandbox"
			}
		}
	}
	return host, why
}
