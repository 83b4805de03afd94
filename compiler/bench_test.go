package compiler

import (
	"github.com/bwpolicy/bwpolicy/facts/factstest"

	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/policy"
	"github.com/bwpolicy/bwpolicy/profile"
	"github.com/bwpolicy/bwpolicy/runtime/hostprobe"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// benchRequest builds a request for profile with n binds and n hide
// entries over a synthetic home holding every credential entry.
func benchRequest(prof string, n int) *Request {
	tree := factstest.Tree{"/proc": {Kind: invocation.KindDir}, "/dev": {Kind: invocation.KindDir}, "/tmp": {Kind: invocation.KindDir}}
	for _, d := range []string{".ssh", ".aws", ".gnupg", ".config/gcloud", ".docker", ".kube", ".hermes/cache/scratch", "proj"} {
		tree["/home/u/"+d] = facts.Stat{Kind: invocation.KindDir}
	}
	for _, f := range []string{".npmrc", ".netrc", ".env"} {
		tree["/home/u/"+f] = facts.Stat{Kind: invocation.KindFile}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "profile: %s\nbinds:\n", prof)
	if n == 0 {
		b.WriteString("  []\n")
	}
	for i := 0; i < n; i++ {
		tree[fmt.Sprintf("/data/d%d", i)] = facts.Stat{Kind: invocation.KindDir}
		tree[fmt.Sprintf("/home/u/proj/s%d/key%d.pem", i, i)] = facts.Stat{Kind: invocation.KindFile}
		fmt.Fprintf(&b, "  - {src: /data/d%d}\n", i)
	}
	b.WriteString("hide:\n")
	if n == 0 {
		b.WriteString("  []\n")
	}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  - s%d/*.pem\n", i)
	}
	host := &facts.Host{FS: tree, UID: 1000, Home: "/home/u", HermesHome: "/home/u/.hermes", ProcessCwd: "/home/u/proj",
		Env: map[string]string{}, Kernel: "6.8.0", HardAS: facts.Unlimited, HardCPU: facts.Unlimited, HardNProc: 60000,
		Arch: "x86_64", Bwrap: hostprobe.BwrapInfo{Path: "/usr/bin/bwrap", Options: map[string]bool{"--disable-userns": true, "--size": true}}}
	return &Request{File: "bench.yaml", Source: []byte(b.String()), Host: host}
}

// BenchmarkCompile measures in-process compilation (after the process's
// one-time CUE and Rego preparation) for each profile with 0, 10 and 100
// binds and hide entries.
func BenchmarkCompile(b *testing.B) {
	if _, ds := profile.Builtin(); ds.HasErrors() {
		b.Fatal(ds)
	}
	if _, err := policy.Builtin(); err != nil {
		b.Fatal(err)
	}
	for _, prof := range []string{"restricted", "workspace", "network"} {
		for _, n := range []int{0, 10, 100} {
			b.Run(fmt.Sprintf("%s/%d", prof, n), func(b *testing.B) {
				req := benchRequest(prof, n)
				if res := Compile(context.Background(), req); res.Invocation == nil {
					b.Fatal(res.Diags)
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					Compile(context.Background(), req)
				}
			})
		}
	}
}

// BenchmarkPolicy measures the Rego evaluation alone.
func BenchmarkPolicy(b *testing.B) {
	req := benchRequest("workspace", 10)
	res := Compile(context.Background(), req)
	if res.Invocation == nil {
		b.Fatal(res.Diags)
	}
	eng, _ := policy.Builtin()
	in := newPolicyInput(res)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := eng.Evaluate(context.Background(), in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileHome measures in-process compilation of the workspace
// profile over a home directory of 200 top-level entries (100 non-dot
// directories, 50 allowed and 50 unknown dot entries), in both home
// layouts (H10).
func BenchmarkCompileHome(b *testing.B) {
	if _, ds := profile.Builtin(); ds.HasErrors() {
		b.Fatal(ds)
	}
	if _, err := policy.Builtin(); err != nil {
		b.Fatal(err)
	}
	for _, layout := range []string{"allowlist", "denylist"} {
		b.Run(layout, func(b *testing.B) {
			req := benchRequest("workspace", 0)
			tree := req.Host.FS.(factstest.Tree)
			for _, e := range benchHomeEntries() {
				tree["/home/u/"+e.rel] = facts.Stat{Kind: e.kind}
			}
			req.Source = append(req.Source, []byte("home:\n  layout: "+layout+"\n")...)
			if res := Compile(context.Background(), req); res.Invocation == nil {
				b.Fatal(res.Diags)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				Compile(context.Background(), req)
			}
		})
	}
}

// benchHomeEntry is one top-level entry of the benchmarks' home.
type benchHomeEntry struct{ rel, kind string }

// benchHomeEntries are the 200 top-level entries BenchmarkCompileHome
// and BenchmarkCompileHomeOnDisk add to the home directory: 100 non-dot
// directories, 50 allowed dot entries (files and directories in turn)
// and 50 unknown dot directories.
func benchHomeEntries() []benchHomeEntry {
	var out []benchHomeEntry
	for i := 0; i < 100; i++ {
		out = append(out, benchHomeEntry{fmt.Sprintf("dir%03d", i), invocation.KindDir})
	}
	for i, a := range facts.HomeAllowed[:min(50, len(facts.HomeAllowed))] {
		out = append(out, benchHomeEntry{a.Path, []string{invocation.KindFile, invocation.KindDir}[i%2]})
	}
	for i := 0; i < 50; i++ {
		out = append(out, benchHomeEntry{fmt.Sprintf(".unknown%02d", i), invocation.KindDir})
	}
	return out
}

// BenchmarkPolicyInput measures the conversion of the policy input to
// the value the rules read (policy.InputValue), which the policy stage
// pays before evaluating.
func BenchmarkPolicyInput(b *testing.B) {
	req := benchRequest("workspace", 10)
	res := Compile(context.Background(), req)
	if res.Invocation == nil {
		b.Fatal(res.Diags)
	}
	in := newPolicyInput(res)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := policy.InputValue(in); err != nil {
			b.Fatal(err)
		}
	}
}
