package runtime

import (
	"fmt"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/hazard/secrets"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// realisticEnv is an environment of n variables as a developer's shell
// or a CI job has them: the usual essentials (PATH, a 1.5 kB LS_COLORS,
// prompts), tool variables, a few secrets by name and by value, and
// generic NAME_i=value padding up to n.
func realisticEnv(n int) []string {
	lsColors := strings.Repeat("rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35:do=01;35:bd=40;33;01:*.tar=01;31:", 20)
	env := []string{
		"PATH=/home/u/.local/bin:/home/u/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/usr/games",
		"HOME=/home/u", "USER=u", "LOGNAME=u", "SHELL=/bin/bash", "TERM=xterm-256color", "LANG=en_US.UTF-8",
		"LC_ALL=en_US.UTF-8", "PWD=/home/u/proj", "OLDPWD=/home/u", "EDITOR=vim", "PAGER=less", "LESS=-R",
		"LS_COLORS=" + lsColors, `PS1=${debian_chroot:+($debian_chroot)}\u@\h:\w\$ `, "SHLVL=2",
		"XDG_CONFIG_HOME=/home/u/.config", "XDG_DATA_DIRS=/usr/local/share:/usr/share", "XDG_SESSION_ID=3",
		"XDG_RUNTIME_DIR=/run/user/1000", "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus",
		"SSH_AUTH_SOCK=/run/user/1000/ssh-agent.socket", "SSH_CONNECTION=10.0.0.1 5555 10.0.0.2 22",
		"GOPATH=/home/u/go", "JAVA_HOME=/usr/lib/jvm/java-17", "NVM_DIR=/home/u/.nvm", "VIRTUAL_ENV=/home/u/proj/.venv",
		"HTTPS_PROXY=http://u:pw@proxy:3128", "NO_PROXY=localhost,127.0.0.1,.internal", "AWS_REGION=eu-west-1",
		"OPENAI_API_KEY=sk-" + strings.Repeat("A", 48), "GITHUB_TOKEN=ghp_" + strings.Repeat("b", 36),
		"DATABASE_URL=postgres://app:pw@db/app", "NODE_OPTIONS=--max-old-space-size=4096",
		"GITHUB_SHA=e3b0c44298fc1c149afbf4c8996fb92427ae41e4", "PYTHONPATH=/home/u/proj/src",
	}
	for i := len(env); i < n; i++ {
		env = append(env, fmt.Sprintf("TOOL_SETTING_%d=/opt/tool%d/share/some/path:value-%d", i, i, i))
	}
	return env
}

// BenchmarkBuildEnv is the environment filtering of every command (H5)
// with the network profile's compiled env policy, over 200 variables.
// BENCHMARKS.md compares it before and after the value checks.
func BenchmarkBuildEnv(b *testing.B) {
	const golden = "../golden/profile_network.json"
	inv, err := invocation.Load(golden)
	if err != nil {
		b.Skip(err)
	}
	environ := realisticEnv(200)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		secrets.BuildEnv(environ, envPolicy(inv.Env))
	}
}
