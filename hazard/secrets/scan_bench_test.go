package secrets

import (
	"strings"
	"testing"
)

// BenchmarkScan: a 2 KiB configuration file of key = value lines, and a
// 2 KiB shell start-up file, as the contents check reads them.
func BenchmarkScan(b *testing.B) {
	for name, text := range map[string]string{
		"config": strings.Repeat("key_"+strings.Repeat("x", 60)+" = value\n", 28),
		"shell":  strings.Repeat("export PATH=\"$HOME/.local/bin:$PATH\"\nalias ll='ls -alF'\n[ -s \"$NVM_DIR/nvm.sh\" ] && . \"$NVM_DIR/nvm.sh\"\n", 20),
	} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for i := 0; i < b.N; i++ {
				if len(Scan(text)) > 0 {
					b.Fatal("a finding")
				}
			}
		})
	}
}
