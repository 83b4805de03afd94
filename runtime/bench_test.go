package runtime

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime/hostprobe"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// The runtime's per-command work, piece by piece (see BENCHMARKS.md):
//
//	go test -run '^$' -bench . ./runtime
//
// BenchmarkLoad and BenchmarkCheckPreconditions grow with the recorded
// preconditions (linearly: TestFSCalls guards the file system calls);
// BenchmarkRunTrue is a whole sandboxed /bin/true from inside a
// process, without bwrun's own start-up.

var benchPreconditions = []int{0, 10, 100, 1000}

// BenchmarkLoadGolden reads and decodes a compiled invocation (the
// network profile's golden file).
func BenchmarkLoadGolden(b *testing.B) {
	const golden = "../golden/profile_network.json"
	if _, err := os.Stat(golden); err != nil {
		b.Skip(err)
	}
	for i := 0; i < b.N; i++ {
		if _, err := invocation.Load(golden); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoad reads and decodes an invocation with N preconditions.
func BenchmarkLoad(b *testing.B) {
	for _, n := range benchPreconditions {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			invPath, _, _ := fscallsFixture(b, n, false)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := invocation.Load(invPath); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCheckPreconditions checks N preconditions of every kind, none
// changed.
func BenchmarkCheckPreconditions(b *testing.B) {
	for _, n := range benchPreconditions {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			invPath, _, _ := fscallsFixture(b, n, false)
			inv, err := invocation.Load(invPath)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := CheckPreconditions(inv); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRunTrue runs /bin/true in a sandbox through Run: with the
// limits (the --info-fd/--block-fd round trip and prlimit), and without
// them (only --json-status-fd).
func BenchmarkRunTrue(b *testing.B) {
	bwrap, err := hostprobe.FindBwrap()
	if err != nil {
		b.Skip(err)
	}
	args := []string{"--unshare-all", "--unshare-user", "--share-net", "--die-with-parent", "--new-session",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--ro-bind", "/dev/null", "/proc/1/mem", "--ro-bind", "/dev/null", "/proc/1/task/1/mem", "--seccomp", "9"}
	id, err := hostprobe.StatIdentity(bwrap)
	if err != nil {
		b.Fatal(err)
	}
	sc := &invocation.Seccomp{Program: []byte{0x06, 0, 0, 0, 0, 0, 0xff, 0x7f}}
	variants := []struct {
		name string
		inv  *invocation.Invocation
	}{
		{"limits", &invocation.Invocation{Format: invocation.Format, Profile: "network",
			Bwrap:   invocation.Bwrap{Path: bwrap, Identity: id, Args: append(append([]string(nil), args...), "--info-fd", "3", "--block-fd", "4", "--json-status-fd", "5")},
			FDs:     []invocation.FD{{Num: 3, Kind: invocation.FDInfo}, {Num: 4, Kind: invocation.FDBlock}, {Num: 5, Kind: invocation.FDStatus}, {Num: 9, Kind: invocation.FDSeccomp}},
			Rlimits: invocation.Rlimits{AsBytes: 256 << 20, CPUSeconds: 30}, Seccomp: sc}},
		{"nolimits", &invocation.Invocation{Format: invocation.Format, Profile: "network",
			Bwrap: invocation.Bwrap{Path: bwrap, Identity: id, Args: append(append([]string(nil), args...), "--json-status-fd", "3")},
			FDs:   []invocation.FD{{Num: 3, Kind: invocation.FDStatus}, {Num: 9, Kind: invocation.FDSeccomp}}, Seccomp: sc}},
	}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			if err := invocation.Validate(v.inv); err != nil {
				b.Fatal(err)
			}
			stdio := Stdio{Warn: func(string) {}}
			for i := 0; i < b.N; i++ {
				code, err := Run(context.Background(), v.inv, []string{"/bin/true"}, stdio)
				if code != 0 || err != nil {
					b.Fatalf("exit %d: %v", code, err)
				}
			}
		})
	}
}
