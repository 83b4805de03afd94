package sandboxtest

import (
	"strings"
	"testing"
)

// S4/S5: the command's stdin and stdout, when the caller redirects them
// from or to host files, cannot be reopened on the host's mount through
// /proc/self/fd. Stdin is the home's .bashrc (read-only inside): the
// command appends to /proc/self/fd/0; stdout goes, appended, to a log in
// the hidden Hermes home: the command truncates /proc/self/fd/1 and
// reads it back. The host's .bashrc is unchanged, the log keeps its
// content (plus what the command printed), and nothing of it reaches
// the command. Control: the same redirections into bwrap run directly
// with the same arguments reach both files.
func testStdioReopen(t *testing.T, f *fixture) {
	log := f.expand("{hermes}/agent-{tag}.log")
	rc := f.expand("{home}/.bashrc")
	orig := f.hostRead(rc)
	inv, _ := f.compile("", call{})
	attack := `echo "echo EVIL" >> /proc/self/fd/0; cat /proc/self/fd/1 </dev/null >&2 & sleep 0.2; kill $! 2>/dev/null; : > /proc/self/fd/1; echo printed`
	for _, control := range []bool{false, true} {
		f.write(log, "LOG "+f.marker+"\n")
		run := tool("bwrun") + " " + inv
		if control {
			run = bwrapPath + " " + strings.Join(quoteAll(rawArgs(t, inv)), " ")
		}
		r := f.exec(call{argv: []string{"/bin/sh", "-c", run + " -- /bin/sh -c '" + attack + "' < " + rc + " >> " + log}})
		hostRC, hostLog := f.hostRead(rc), f.hostRead(log)
		if control {
			if !strings.Contains(hostRC, "EVIL") || strings.Contains(hostLog, f.marker) {
				t.Errorf("control: bwrap alone did not let the command reach the files: .bashrc %q, log %q, %v", hostRC, hostLog, r)
			}
			f.write(rc, orig)
			continue
		}
		f.wantCode(r, 0)
		f.noMarker(r)
		if hostRC != orig {
			t.Errorf("the command changed the host's .bashrc through its stdin: %q", hostRC)
		}
		if hostLog != "LOG "+f.marker+"\nprinted\n" {
			t.Errorf("the host log is %q, want its content and the command's output", hostLog)
		}
	}
}

// quoteAll single-quotes each argument for sh.
func quoteAll(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return out
}
