package git

import (
	"crypto/sha256"
	"strconv"
)

// ConfigDigest is the identity of a configuration file as far as what
// git runs from it: the entries the post-command scan judges (CodeKey,
// includes among them, and core.worktree), each by its key and value as
// git reads them (ParseConfig: sections and keys lower-cased, values
// decoded), in file order, line numbers left out. An edit of any other
// key (git config user.name, a remote, a branch) leaves it as it was;
// a code key or include added, removed, changed or moved among the
// others changes it. A file ParseConfig cannot read is identified by
// its whole content instead (fail closed: what the parser does not
// understand, any change to it is a change). The two kinds never
// collide: each is hashed behind its own tag.
func ConfigDigest(content []byte) [32]byte {
	entries, err := ParseConfig(content)
	h := sha256.New()
	if err != nil {
		h.Write([]byte("bwpolicy-config-raw\x00"))
		h.Write(content)
		var out [32]byte
		copy(out[:], h.Sum(nil))
		return out
	}
	h.Write([]byte("bwpolicy-config-code\x00"))
	for _, e := range entries {
		if !CodeKey(e) && e.Key != "core.worktree" {
			continue
		}
		v := "=" + e.Value
		if e.Bool {
			v = "" // git's implicit true: no "="
		}
		// Quoted, so that no key and value can pass for another pair.
		h.Write([]byte(strconv.Quote(e.Key) + strconv.Quote(v) + "\n"))
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}
