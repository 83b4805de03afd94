package facts

// This file finds the denied paths a command could create on the host
// (S5, H7, H10): an absent denied path inside the writable set would be
// created by the command itself (~/.ssh/authorized_keys with the home
// directory writable; ~/.cache/huggingface/token through a read-write
// bind of ~/.cache), and the host would use it later. A mask cannot be
// mounted on an absent path without creating it on the host first, so
// the policy refuses such a writable set.

// CreatableDenied is one absent denied path inside a writable directory.
type CreatableDenied struct {
	// Path is the denied path; Root the writable directory that holds
	// it; BindIndex the bind that makes Root writable (-1: the working
	// directory).
	Path      string `json:"path"`
	Root      string `json:"root"`
	BindIndex int    `json:"bind_index"`
}

// maxCreatable bounds the paths listed (the first ones name the problem).
const maxCreatable = 16

// creatableDenied returns the absent paths of the denied set (the
// profile's hidden entries, the credential stores, the Hermes homes,
// the paths credential variables name) that lie inside a directory the
// sandbox may write on the host: the working directory when writable
// (not when the home layout rebuilds it: its top level is then a
// tmpfs), the read-write binds at their own path. The home layout's
// left-out entries are out of reach.
func creatableDenied(f *Facts, cwdWritable bool) []CreatableDenied {
	roots := writableRoots(f, cwdWritable)
	l := f.HomeLayout
	var out []CreatableDenied
	for _, h := range f.Hidden {
		if h.Kind != "absent" || h.Source == SourceHide || h.Source == SourceHostSocket || len(out) == maxCreatable {
			continue
		}
		for _, r := range roots {
			if !Within(h.Path, r.dir) || !l.writableAt(h.Path, r.dir) {
				continue
			}
			out = append(out, CreatableDenied{Path: h.Entry, Root: r.dir, BindIndex: r.index})
			break
		}
	}
	return out
}

// writableAt reports whether host path p, inside the writable root
// root, is writable in the sandbox given the home layout: a left-out
// path is out of reach; inside an entry bound back, p is writable when
// the root is mounted over the entry (the root lies in it) or the entry
// itself is bound read-write. Without the layout, or outside HOME, the
// root decides.
func (l *HomeLayout) writableAt(p, root string) bool {
	if !l.Active() || !Within(p, l.Home) {
		return true
	}
	if l.Hides(p) {
		return false
	}
	var entry *HomeEntry
	for i := range l.Entries {
		if e := &l.Entries[i]; Within(p, e.Path) && (entry == nil || len(e.Path) > len(entry.Path)) {
			entry = e
		}
	}
	if entry == nil {
		return Within(root, l.Home) && root != l.Home // a root inside HOME that is no entry's: its own bind
	}
	return Within(root, entry.Path) || entry.Writable
}
