package facts

import (
	"path"
	"strings"

	"github.com/bwpolicy/bwpolicy/hazard/secrets"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// ShellStartupFiles are the shell start-up files of the home directory
// that rcSecrets reads (H7): the home layout shows them, and the shell a
// command runs sources them, so a secret written in one reaches both the
// command's environment and its `cat`.
var ShellStartupFiles = []string{
	".profile", ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bash_aliases",
	".zshrc", ".zshenv", ".zprofile", ".zlogin", ".kshrc", ".mkshrc", ".config/fish/config.fish",
}

// rcSecrets hides each shell start-up file in which the detector
// (secrets.Scan) finds a credential, comments included (they are as
// readable), or which it could not examine whole (larger than its
// bounds): H5 filters the environment bwrun is given, not what the rc
// files export afterwards, and the file itself is readable. The file
// becomes an empty read-only file, so the rest of its settings is lost
// in the sandbox; the warning names the file, each line and rule (never
// the value) and how to keep the secret out of it. A file a start-up
// file reads into a secret variable ($(cat FILE)) is hidden wherever it
// is. The files they source (`. ~/.bash_aliases`, `source
// $HOME/secrets.sh`) are read the same way, one level down.
func (g *gatherer) rcSecrets(h *Host, f *Facts) (out []Hidden, files []SecretFile) {
	todo := make([]string, 0, len(ShellStartupFiles))
	for _, name := range ShellStartupFiles {
		todo = append(todo, path.Join(h.Home, name))
	}
	seen := map[string]bool{}
	for i := 0; i < len(todo); i++ {
		p := todo[i]
		if seen[p] || alreadyUnreachable(p, f) || f.HomeLayout.Hides(p) {
			continue
		}
		seen[p] = true
		data, err := g.fs.ReadFile(p, secrets.MaxTextBytes+1)
		if err != nil {
			continue
		}
		if i < len(ShellStartupFiles) { // the files they source, one level down, bounded
			for _, s := range secrets.Sourced(string(data)) {
				if q := homePath(h, s); q != "" && len(todo) < len(ShellStartupFiles)+maxSourcedFiles {
					todo = append(todo, q)
				}
			}
		}
		sf, named := secretLines(p, string(data))
		xs, ns := g.hideNamed(h, f, named, SourceStartupSecret, out)
		out, files = append(out, xs...), append(files, ns...)
		if len(sf.Lines) == 0 {
			continue
		}
		x := g.hidden(p, SourceStartupSecret)
		if x.Kind != invocation.KindFile || alreadyUnreachable(x.Path, f) {
			continue
		}
		sf.Startup = true
		if rel, ok := strings.CutPrefix(p, h.Home+"/"); ok {
			sf.Rel = rel
		}
		out, files = append(out, x), append(files, sf)
	}
	return out, files
}

// maxSourcedFiles bounds the files the start-up files source that
// rcSecrets reads besides them.
const maxSourcedFiles = 32
