package facts

import (
	"path"

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
// is.
func (g *gatherer) rcSecrets(h *Host, f *Facts) (out []Hidden, files []SecretFile) {
	for _, name := range ShellStartupFiles {
		p := path.Join(h.Home, name)
		if alreadyUnreachable(p, f) {
			continue
		}
		data, err := g.fs.ReadFile(p, secrets.MaxTextBytes+1)
		if err != nil {
			continue
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
		sf.Startup, sf.Rel = true, name
		out, files = append(out, x), append(files, sf)
	}
	return out, files
}
