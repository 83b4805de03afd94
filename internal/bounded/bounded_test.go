package bounded

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

var sink [][]byte

func init() {
	Handle("test", func(op string, body []byte) ([]byte, error) {
		Mark(&Where{File: "f.rego", Line: 3, Name: op})
		switch op {
		case "echo":
			return body, nil
		case "fail":
			return nil, errors.New("no: " + string(body))
		case "spin":
			//lint:ignore SA5002 the case is a loop that never ends
			for {
			}
		case "grow": // a heap that grows in small steps
			for {
				sink = append(sink, make([]byte, 1<<20))
			}
		case "huge": // one allocation past the address-space bound
			b := make([]byte, 8<<30)
			return b[:1], nil
		case "env":
			return []byte(strings.Join(os.Environ(), "\n")), nil
		}
		return nil, nil
	})
}

func TestMain(m *testing.M) {
	ServeIfChild()
	os.Exit(m.Run())
}

func start(t *testing.T, lim Limits) *Child {
	t.Helper()
	c, err := Start("test", lim)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func TestCallsAndErrors(t *testing.T) {
	c := start(t, Limits{})
	for i := 0; i < 3; i++ {
		got, err := c.Call("echo", []byte("hi"))
		if err != nil || string(got) != "hi" {
			t.Fatalf("echo: %q %v", got, err)
		}
	}
	_, err := c.Call("fail", []byte("x"))
	var r *Remote
	if !errors.As(err, &r) || r.Message != "no: x" {
		t.Fatalf("fail: %v", err)
	}
	if got, err := c.Call("echo", []byte("still")); err != nil || string(got) != "still" {
		t.Fatalf("after an error: %q %v", got, err)
	}
}

// TestBounds: a loop, a growing heap and one huge allocation each end
// in an *Exceeded naming the bound (and, for the ones the child can
// report, where it was), within the time bound plus the grace period.
func TestBounds(t *testing.T) {
	for _, tc := range []struct {
		op    string
		bound Bound
		where bool
	}{
		{"spin", Time, true},
		{"grow", Memory, true},
		{"huge", Memory, false},
	} {
		t.Run(tc.op, func(t *testing.T) {
			lim := Limits{Time: 500 * time.Millisecond, MemoryMiB: 64}
			c := start(t, lim)
			begin := time.Now()
			_, err := c.Call(tc.op, nil)
			took := time.Since(begin)
			var e *Exceeded
			if !errors.As(err, &e) || e.Bound != tc.bound {
				t.Fatalf("%s: %v, want the %s bound", tc.op, err, tc.bound)
			}
			if tc.where && (e.Where.File != "f.rego" || e.Where.Line != 3 || e.Where.Name != tc.op) {
				t.Errorf("where: %+v", e.Where)
			}
			if took > lim.Time+grace+time.Second {
				t.Errorf("took %v", took)
			}
			if _, err := c.Call("echo", nil); err == nil {
				t.Errorf("a child past its bound still answers")
			}
		})
	}
}

// TestEmptyEnvironment: the child sees none of the parent's environment
// unless Limits.Env says so.
func TestEmptyEnvironment(t *testing.T) {
	t.Setenv("BWPOLICY_SECRET_TOKEN", "s3cret")
	got, err := start(t, Limits{}).Call("env", nil)
	if err != nil || strings.Contains(string(got), "s3cret") {
		t.Fatalf("default: %q %v", got, err)
	}
	got, err = start(t, Limits{Env: true}).Call("env", nil)
	if err != nil || !strings.Contains(string(got), "s3cret") {
		t.Fatalf("Env: %q %v", got, err)
	}
}
