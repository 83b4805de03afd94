package facts

// This file hides the user's home in the password database when HOME
// names another directory (H10): the credentials live where the user
// keeps them, not where the caller's environment points. With HOME
// unset (a systemd unit, env -i, a container) FromEnvironment takes the
// password database's home as HOME itself.

import (
	"os/user"
	"path"
	"path/filepath"
	"strconv"

	"github.com/bwpolicy/bwpolicy/profile"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// passwdHomeOf returns uid's home directory in the password database,
// cleaned; "" when it is unknown, relative or "/".
func passwdHomeOf(uid int) string {
	u, err := user.LookupId(strconv.Itoa(uid))
	if err != nil {
		return ""
	}
	d := filepath.Clean(u.HomeDir)
	if !filepath.IsAbs(d) || d == "/" {
		return ""
	}
	return d
}

// passwdHome returns what hides the password database's home when HOME
// names another directory: the whole directory (a mask) when neither
// lies in the other, else its entries of the denied set (the profile's
// hidden names), each hidden where it is, as HOME's are in the denylist
// layout. Nothing when it is HOME, unknown or not a directory.
func (g *gatherer) passwdHome(h *Host, p *profile.Profile) []Hidden {
	ph := h.PasswdHome
	if ph == "" || ph == h.Home {
		return nil
	}
	pp := g.path(ph)
	if pp.Kind != invocation.KindDir || pp.Real == h.Home {
		return nil
	}
	if !Within(h.Home, pp.Real) && !Within(pp.Real, h.Home) && !Within(h.Home, ph) && !Within(ph, h.Home) {
		return []Hidden{g.hidden(ph, SourcePasswdHome)}
	}
	var out []Hidden
	for _, name := range p.HiddenNames() {
		out = append(out, g.hidden(path.Join(ph, name), SourcePasswdHome))
	}
	if p.HideHermesHome {
		// Its Hermes home, which HOME's .hermes does not name.
		out = append(out, g.hidden(path.Join(ph, ".hermes"), SourcePasswdHome))
	}
	return out
}

// otherPasswdHome returns the password database's home when HOME names
// another directory (its start-up files still run at the user's next
// login: H9 protects them too); "" otherwise.
func otherPasswdHome(h *Host) string {
	if h == nil || h.PasswdHome == "" || h.PasswdHome == h.Home {
		return ""
	}
	return h.PasswdHome
}
