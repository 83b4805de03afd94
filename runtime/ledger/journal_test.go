package ledger

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestJournal: a mark whose bwrun is alive (holding the lock) is not
// pending; one whose process died is, with the content it was written
// with; Done removes it. A process killed with SIGKILL drops its lock.
func TestJournal(t *testing.T) {
	inv := filepath.Join(t.TempDir(), "inv.json")
	j, err := Begin(inv, []byte("content"))
	if err != nil {
		t.Fatal(err)
	}
	if ps, err := FindPending(inv); err != nil || len(ps) != 0 {
		t.Fatalf("a live run's mark is pending: %v %v", ps, err)
	}
	if err := j.Done(); err != nil {
		t.Fatal(err)
	}
	if ps, _ := FindPending(inv); len(ps) != 0 {
		t.Fatalf("a finished run's mark is pending: %v", ps)
	}
	// A helper process (TestMain) writes a mark and is SIGKILLed
	// holding it.
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "LEDGER_JOURNAL_CHILD="+inv)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := out.Read(buf); err != nil || string(buf) != "ready" {
		t.Fatalf("child: %q %v", buf, err)
	}
	if ps, _ := FindPending(inv); len(ps) != 0 {
		t.Fatal("the child's mark is pending while it lives")
	}
	cmd.Process.Kill()
	cmd.Wait()
	ps, err := FindPending(inv)
	if err != nil || len(ps) != 1 || string(ps[0].Invocation) != "child" {
		t.Fatalf("after SIGKILL: %v %v", ps, err)
	}
	ps[0].Release()
	ps, _ = FindPending(inv)
	if len(ps) != 1 {
		t.Fatal("a released mark is gone")
	}
	ps[0].Done()
	if ps, _ := FindPending(inv); len(ps) != 0 {
		t.Fatal("a done mark is still pending")
	}
}

// TestMain runs TestJournal's helper process when asked to: it writes
// a mark and waits to be killed holding it.
func TestMain(m *testing.M) {
	if inv := os.Getenv("LEDGER_JOURNAL_CHILD"); inv != "" {
		if _, err := Begin(inv, []byte("child")); err != nil {
			os.Exit(1)
		}
		os.Stdout.WriteString("ready")
		select {}
	}
	os.Exit(m.Run())
}

// TestJournalLeave: a mark given up with Leave is found pending by the
// same process (bwrun --serve runs the next command itself); control: a
// mark still held is skipped as a running bwrun's.
func TestJournalLeave(t *testing.T) {
	inv := filepath.Join(t.TempDir(), "inv.json")
	j, err := Begin(inv, []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	if ps, _ := FindPending(inv); len(ps) != 0 {
		t.Fatalf("control: a held mark was found pending: %v", ps)
	}
	j.Leave()
	ps, err := FindPending(inv)
	if err != nil || len(ps) != 1 || string(ps[0].Invocation) != "{}" {
		t.Fatalf("a left mark: %v %v", ps, err)
	}
	ps[0].Done()
}
