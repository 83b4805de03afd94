package invocation

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// EnvDigest is how Env.Checked records a variable's value: "" for an
// unset or empty one, else "sha256:" and the value's SHA-256 in hex (the
// invocation never holds the value itself).
func EnvDigest(value string) string {
	if value == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(value))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// validDigest reports whether d is what EnvDigest writes.
func validDigest(d string) bool {
	if d == "" {
		return true
	}
	h, ok := strings.CutPrefix(d, "sha256:")
	if !ok || len(h) != 2*sha256.Size {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil && strings.ToLower(h) == h
}
