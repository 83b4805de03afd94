package hostprobe

import (
	"strconv"
	"strings"
)

// UnescapeMount undoes mountinfo's octal escapes (\040 for a space,
// \011 tab, \012 newline, \134 backslash) in a root or mount point
// field of /proc/PID/mountinfo.
func UnescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
