package facts

import "github.com/bwpolicy/bwpolicy/settings"

// expandHide expands the user's hide entries (H4). Not implemented yet:
// it returns nothing, and the policy stage refuses a non-empty hide list
// so that a user never believes a path is hidden when it is not.
func expandHide(g *gatherer, h *Host, s *settings.Settings) []Hidden { return nil }
