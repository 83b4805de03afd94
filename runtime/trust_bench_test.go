package runtime

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime/hostprobe"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"golang.org/x/sys/unix"
)

// BenchmarkTrust measures what the invocation-trust checks add to every
// command, piece by piece: LoadTrusted against Load (the file's owner,
// mode, links, directories and place; CheckInvocationFile is that part
// alone), CheckArgs, CheckBwrap and the second check at the fork
// (OpenBwrapAtFork) against the stat and access check they replaced
// (OldCheckBwrap), and the descriptor duplicated for the exec. The
// invocation is $BWPOLICY_BENCH_INVOCATION (copied to a file of the
// caller's, next to it, so the walk is as deep as the real one's), else
// the golden R7_cwd_home with this host's bwrap.
func BenchmarkTrust(b *testing.B) {
	var inv *invocation.Invocation
	var p string
	if src := os.Getenv("BWPOLICY_BENCH_INVOCATION"); src != "" {
		data, err := os.ReadFile(src)
		if err != nil {
			b.Fatal(err)
		}
		p = filepath.Join(filepath.Dir(src), "bench-copy.json")
		os.Remove(p)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { os.Remove(p) })
		if inv, err = invocation.Decode(data); err != nil {
			b.Fatal(err)
		}
	} else {
		inv = goldenInvocations(b)["R7_cwd_home.json"]
		bw, err := hostprobe.FindBwrap()
		if err != nil {
			b.Skip(err)
		}
		inv.Bwrap.Path = bw
		if inv.Bwrap.Identity, err = hostprobe.StatIdentity(bw); err != nil {
			b.Fatal(err)
		}
		data, _ := json.Marshal(inv)
		p = filepath.Join(b.TempDir(), "inv.json")
		os.WriteFile(p, data, 0o600)
	}
	b.Run("Load", func(b *testing.B) {
		defer cpuPerOp(b)()
		for i := 0; i < b.N; i++ {
			if _, err := invocation.Load(p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("LoadTrusted", func(b *testing.B) {
		defer cpuPerOp(b)()
		for i := 0; i < b.N; i++ {
			if _, err := LoadTrusted(p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("CheckInvocationFile", func(b *testing.B) {
		defer cpuPerOp(b)()
		for i := 0; i < b.N; i++ {
			if err := CheckInvocationFile(p, inv); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("CheckArgs", func(b *testing.B) {
		defer cpuPerOp(b)()
		for i := 0; i < b.N; i++ {
			if err := CheckArgs(inv); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("CheckBwrap", func(b *testing.B) {
		defer cpuPerOp(b)()
		for i := 0; i < b.N; i++ {
			if err := CheckBwrap(inv); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("OpenBwrapAtFork", func(b *testing.B) {
		// startBwrap's second check, on the descriptor it executes.
		defer cpuPerOp(b)()
		for i := 0; i < b.N; i++ {
			f, err := openBwrap(inv)
			if err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
	})
	b.Run("OldCheckBwrap", func(b *testing.B) {
		defer cpuPerOp(b)()
		// What CheckBwrap did before: stat and access(X_OK).
		for i := 0; i < b.N; i++ {
			if fi, err := os.Stat(inv.Bwrap.Path); err != nil || !fi.Mode().IsRegular() || unix.Access(inv.Bwrap.Path, unix.X_OK) != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("DupForExec", func(b *testing.B) {
		f, err := openBwrap(inv)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		defer cpuPerOp(b)()
		for i := 0; i < b.N; i++ {
			n, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 64)
			if err != nil {
				b.Fatal(err)
			}
			unix.Close(n)
		}
	})
}

// cpuPerOp reports the process's CPU time (user and system) per
// operation, which a loaded machine inflates far less than wall time.
// Call the result when the loop is done.
func cpuPerOp(b *testing.B) func() {
	cpu := func() int64 {
		var ru unix.Rusage
		unix.Getrusage(unix.RUSAGE_SELF, &ru)
		return ru.Utime.Nano() + ru.Stime.Nano()
	}
	start := cpu()
	return func() { b.ReportMetric(float64(cpu()-start)/float64(b.N), "cpu-ns/op") }
}
