package filekind

// Stat is what bwpolicy needs to know of one path: its kind and, for a
// symlink, its target. Kind is one of the invocation.Kind* constants.
type Stat struct {
	Kind   string
	Target string
	// MTime is a directory's modification time (ns), recorded only for
	// the directories a hide glob walked: a new match changes it.
	MTime int64
	// Content is a file's content in a synthetic tree (factstest.Tree,
	// tests only).
	Content string
	// UID is the owner's user id (OS only; 0 in a synthetic tree).
	UID int
	// Err is why p could not be examined (Kind is then KindOther): an
	// lstat error other than a missing path and other than a path out of
	// this user's reach for good (invocation.KindDenied). The compile
	// refuses such a path: bwrun could never check it.
	Err error
}
