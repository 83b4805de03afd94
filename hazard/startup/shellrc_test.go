package startup

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

var s4Names = []string{"DBUS_SESSION_BUS_ADDRESS", "GPG_AGENT_INFO", "SSH_AUTH_SOCK"}

func TestUnsetAfterRCRewrites(t *testing.T) {
	const guard = `case ${A+x}${B+x} in ?*) exit 125; : "${__bwrun_S4?a shell rc file kept a variable bwrun removes (S4): not running the command}";; esac; `
	const pre = `\command unset A B || exit 125; ` + guard
	names := []string{"A", "B"}
	cases := []struct {
		argv []string
		want []string // nil: unchanged
	}{
		{[]string{"/bin/sh", "-c", "echo hi"}, []string{"/bin/sh", "-c", pre + "echo hi"}},
		{[]string{"bash", "-lc", "x", "arg0", "a1"}, []string{"bash", "-lc", pre + "x", "arg0", "a1"}},
		{[]string{"bash", "-l", "-i", "-c", "x"}, []string{"bash", "-l", "-i", "-c", pre + "x"}},
		{[]string{"bash", "--login", "-c", "x"}, []string{"bash", "--login", "-c", pre + "x"}},
		{[]string{"bash", "--rcfile", "/r", "-ic", "x"}, []string{"bash", "--rcfile", "/r", "-ic", pre + "x"}},
		{[]string{"bash", "-o", "pipefail", "-ec", "x"}, []string{"bash", "-o", "pipefail", "-ec", pre + "x"}},
		{[]string{"bash", "-co", "errexit", "x"}, []string{"bash", "-co", "errexit", pre + "x"}},
		{[]string{"bash", "-O", "extglob", "-c", "x"}, []string{"bash", "-O", "extglob", "-c", pre + "x"}},
		{[]string{"bash", "-c", "--", "x"}, []string{"bash", "-c", "--", pre + "x"}},
		{[]string{"bash", "-c", "-e", "x"}, []string{"bash", "-c", "-e", pre + "x"}},
		{[]string{"/usr/bin/dash", "-c", ""}, []string{"/usr/bin/dash", "-c", pre}},
		{[]string{"mksh", "-lc", "x"}, []string{"mksh", "-lc", pre + "x"}},
		{[]string{"busybox", "sh", "-c", "x"}, []string{"busybox", "sh", "-c", pre + "x"}},
		{[]string{"zsh", "-c", "x"}, []string{"zsh", "-c", `\builtin unset A B || exit 125; ` + guard + "x"}},
		// Not a -c script: unchanged.
		{[]string{"bash", "script.sh"}, nil},
		{[]string{"bash", "-l", "script.sh", "-c", "x"}, nil},
		{[]string{"bash", "-c"}, nil},
		{[]string{"bash", "+c", "x"}, nil},
		{[]string{"sh"}, nil},
		{[]string{"python3", "-c", "x"}, nil},
		{[]string{"busybox", "ls", "-c", "x"}, nil},
		{[]string{"fish", "-c", "x"}, nil},
		{[]string{"bashful", "-c", "x"}, nil},
	}
	for _, c := range cases {
		orig := append([]string(nil), c.argv...)
		got, ok := UnsetAfterRC(c.argv, names)
		want := c.want
		if want == nil {
			want = orig
		}
		if !reflect.DeepEqual(got, want) || ok != (c.want != nil) {
			t.Errorf("UnsetAfterRC(%q) = %q, %v; want %q, %v", orig, got, ok, want, c.want != nil)
		}
		if !reflect.DeepEqual(c.argv, orig) {
			t.Errorf("UnsetAfterRC modified its argument: %q", c.argv)
		}
	}
	if got, ok := UnsetAfterRC([]string{"sh", "-c", "x"}, nil); ok || got[2] != "x" {
		t.Errorf("no names: %q, %v", got, ok)
	}
}

// TestUnsetAfterRCShells runs each shell (on the host: the sandbox plays
// no part in the order of rc files and script) with rc files that export
// SSH_AUTH_SOCK again, alias and shadow `unset`, and checks that the
// rewritten script no longer sees it while the rc files did run. The
// same command without the rewrite sees it: the test can fail.
func TestUnsetAfterRCShells(t *testing.T) {
	home := t.TempDir()
	rc := map[string]string{
		".profile": "export SSH_AUTH_SOCK=/from/profile RC=profile\n",
		".bashrc":  "export SSH_AUTH_SOCK=/from/bashrc RC=bashrc\nalias unset=true\nunset() { :; }\n",
		".zshenv":  "export SSH_AUTH_SOCK=/from/zshenv RC=zshenv\nalias unset=true\n",
		".mkshrc":  "export SSH_AUTH_SOCK=/from/mkshrc RC=mkshrc\n",
	}
	for name, content := range rc {
		if err := os.WriteFile(filepath.Join(home, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const script = `echo "rc=${RC-none} sock=${SSH_AUTH_SOCK-unset} gpg=${GPG_AGENT_INFO-unset}"`
	cases := []struct {
		shell string
		flags []string
		rc    string
	}{
		{"sh", []string{"-l"}, "profile"},
		{"dash", []string{"-l"}, "profile"},
		{"bash", []string{"-l"}, "profile"},
		{"bash", []string{"-i"}, "bashrc"},
		{"zsh", nil, "zshenv"},
		{"mksh", []string{"-i"}, "mkshrc"},
	}
	for _, c := range cases {
		t.Run(c.shell+strings.Join(c.flags, ""), func(t *testing.T) {
			path, err := exec.LookPath(c.shell)
			if err != nil {
				t.Fatalf("%s is not installed (make setup installs it): %v", c.shell, err)
			}
			argv := append(append([]string{path}, c.flags...), "-c", script)
			run := func(argv []string) (string, int) {
				cmd := exec.Command(argv[0], argv[1:]...)
				cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin", "GPG_AGENT_INFO=/x:0:1", "ENV=" + filepath.Join(home, ".mkshrc")}
				cmd.Stdin = nil
				out, _ := cmd.Output()
				return strings.TrimSpace(string(out)), cmd.ProcessState.ExitCode()
			}
			before, _ := run(argv)
			if !strings.Contains(before, "rc="+c.rc) || strings.Contains(before, "sock=unset") {
				t.Fatalf("control: the rc file should set SSH_AUTH_SOCK without the rewrite: %q", before)
			}
			rewritten, ok := UnsetAfterRC(argv, s4Names)
			if !ok {
				t.Fatalf("not rewritten: %q", argv)
			}
			after, code := run(rewritten)
			if want := "rc=" + c.rc + " sock=unset gpg=unset"; after != want || code != 0 {
				t.Errorf("after the rewrite: %q (exit %d), want %q (exit 0)", after, code, want)
			}
		})
	}
}

// TestUnsetAfterRCReadOnly: a variable an rc file made read-only cannot
// be removed, and then the script does not run.
func TestUnsetAfterRCReadOnly(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".profile"), []byte("readonly SSH_AUTH_SOCK=/from/profile\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, shell := range []string{"dash", "bash"} {
		argv, _ := UnsetAfterRC([]string{shell, "-l", "-c", "echo ran"}, s4Names)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != 125 || strings.Contains(string(out), "ran") {
			t.Errorf("%s: exit %d, output %q; want 125 and the script not run", shell, code, out)
		}
	}
}

func TestValidateUnsetAfterRCNames(t *testing.T) {
	for _, name := range []string{"SSH_AUTH_SOCK", "_x", "a1"} {
		if !invocation.IsShellName(name) {
			t.Errorf("%q should be a shell name", name)
		}
	}
	for _, name := range []string{"", "1a", "A;rm -rf /", "A B", "A-B", "Ä"} {
		if invocation.IsShellName(name) {
			t.Errorf("%q should not be a shell name", name)
		}
	}
}

// TestUnsetAfterRCKeepsMeaning runs many option shapes through the real
// shells, with and without the rewrite: the script, $0 and the
// positional parameters must be the same, only the S4 variables gone.
// A rewrite of the wrong argument (the name $0, an option's value) would
// show as a different output or a failure.
func TestUnsetAfterRCKeepsMeaning(t *testing.T) {
	const script = `echo "0=$0 1=${1-} 2=${2-} sock=${SSH_AUTH_SOCK-unset}"`
	shapes := [][]string{
		{"-c", script},
		{"-c", script, "name"},
		{"-c", script, "name", "a1", "a2"},
		{"-e", "-c", script, "name", "a1"},
		{"-ec", script, "name", "a1"},
		{"-c", "-e", script, "name"},
		{"-o", "errexit", "-c", script, "name", "-x"},
		{"-co", "errexit", script, "name"},
		{"+e", "-c", script, "n"},
		{"-c", "--", script, "n", "--"},
		{"-c", "-", script, "n"},
	}
	bashOnly := [][]string{
		{"--noprofile", "--norc", "-c", script, "n"},
		{"--rcfile", "/dev/null", "-c", script, "n"},
		{"-O", "extglob", "-c", script, "n"},
		{"-o", "pipefail", "-O", "nullglob", "-ec", script, "n", "a"},
	}
	compared := 0
	for _, shell := range []string{"bash", "dash", "zsh", "mksh"} {
		path, err := exec.LookPath(shell)
		if err != nil {
			t.Fatalf("%s is not installed (make setup installs it): %v", shell, err)
		}
		all := shapes
		if shell == "bash" {
			all = append(append([][]string(nil), shapes...), bashOnly...)
		}
		for _, shape := range all {
			argv := append([]string{path}, shape...)
			run := func(argv []string) (string, int) {
				cmd := exec.Command(argv[0], argv[1:]...)
				cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent", "SSH_AUTH_SOCK=/x"}
				out, _ := cmd.Output()
				return string(out), cmd.ProcessState.ExitCode()
			}
			before, codeBefore := run(argv)
			rewritten, ok := UnsetAfterRC(argv, s4Names)
			if !ok {
				t.Errorf("%s %q: not rewritten", shell, shape)
				continue
			}
			after, codeAfter := run(rewritten)
			want := strings.Replace(before, "sock=/x", "sock=unset", 1)
			if codeBefore != 0 || !strings.Contains(before, "sock=/x") {
				// The shell itself refuses this shape: the rewrite must
				// not make it run.
				if codeAfter == 0 {
					t.Errorf("%s %q: the shell refuses it (%d, %q) but the rewrite runs: %q", shell, shape, codeBefore, before, after)
				}
				continue
			}
			compared++
			if after != want || codeAfter != 0 {
				t.Errorf("%s %q:\n before %q\n after  %q (exit %d)\n want   %q", shell, shape, before, after, codeAfter, want)
			}
		}
	}
	if compared < 44 {
		t.Errorf("only %d shapes ran in their shell: the test compares too little", compared)
	}
}

// TestUnsetAfterRCHostileRC: rc files that define functions or aliases
// named command, builtin, unset or exit, or disable the builtins (bash
// `enable -n`, zsh `disable`) with look-alikes on PATH, in bash, dash,
// zsh and mksh login shells: the removal wins (the script sees the
// variable unset) or the script never runs: exit 125, or, where exit
// itself is redefined, the shell's own error status.
func TestUnsetAfterRCHostileRC(t *testing.T) {
	rcs := []struct {
		name, rc   string
		exitShadow bool
	}{
		{"command_function", "command(){ return 0; }", false},
		{"builtin_function", "builtin(){ return 0; }", false},
		{"unset_function", "unset(){ return 0; }", false},
		{"aliases", "alias unset=true command=true builtin=true", false},
		{"all_functions", "command(){ return 0; }\nbuiltin(){ return 0; }\nunset(){ return 0; }", false},
		{"exit_too", "exit(){ return 0; }\ncommand(){ return 0; }\nbuiltin(){ return 0; }", true},
		{"enable_n", "enable -n unset\nenable -n command\nPATH=$HOME/bin:$PATH", false},
		{"enable_n_exit", "enable -n exit\nenable -n command\nPATH=$HOME/bin:$PATH", true},
		{"zsh_disable", "disable unset\nPATH=$HOME/bin:$PATH", false},
		{"zsh_disable_exit", "disable exit\ndisable builtin\nPATH=$HOME/bin:$PATH", true},
	}
	for _, shell := range []string{"bash", "dash", "zsh", "mksh"} {
		path, err := exec.LookPath(shell)
		if err != nil {
			t.Fatalf("%s is not installed (make setup installs it): %v", shell, err)
		}
		for _, c := range rcs {
			t.Run(shell+"/"+c.name, func(t *testing.T) {
				home := t.TempDir()
				bin := filepath.Join(home, "bin")
				os.Mkdir(bin, 0o755)
				for _, n := range []string{"unset", "command", "builtin", "exit"} {
					os.WriteFile(filepath.Join(bin, n), []byte("#!/bin/sh\nexit 0\n"), 0o755)
				}
				rc := "export SSH_AUTH_SOCK=/from/rc\n" + strings.ReplaceAll(c.rc, `\n`, "\n") + "\n"
				for _, f := range []string{".profile", ".zshenv"} {
					if err := os.WriteFile(filepath.Join(home, f), []byte(rc), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				run := func(argv []string) (string, int) {
					cmd := exec.Command(argv[0], argv[1:]...)
					cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
					out, _ := cmd.Output()
					return strings.TrimSpace(string(out)), cmd.ProcessState.ExitCode()
				}
				argv := []string{path, "-l", "-c", `echo "ran sock=${SSH_AUTH_SOCK-unset}"`}
				before, _ := run(argv)
				if !strings.Contains(before, "ran sock=/from/rc") {
					// dash refuses a function named unset ("Bad function
					// name") and the login shell stops in .profile.
					t.Logf("control: this shell does not run the script under this rc file: %q", before)
				}
				refused := !strings.Contains(before, "ran")
				rewritten, _ := UnsetAfterRC(argv, s4Names)
				out, code := run(rewritten)
				switch {
				case strings.Contains(out, "/from/rc"):
					t.Errorf("the script ran with the rc file's SSH_AUTH_SOCK: %q (exit %d)", out, code)
				case out == "ran sock=unset" && code == 0:
				case strings.Contains(out, "ran"):
					t.Errorf("unexpected output %q (exit %d)", out, code)
				case code == 125:
				case (c.exitShadow || refused) && code != 0:
				default:
					t.Errorf("the script did not run, but the exit status is %d, want 125", code)
				}
			})
		}
	}
}
