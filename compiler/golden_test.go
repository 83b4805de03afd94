package compiler

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/internal/goldentest"
	"github.com/bwpolicy/bwpolicy/internal/testglob"

	"github.com/sebdah/goldie/v2"
	"golang.org/x/tools/txtar"

	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/facts/factstest"
	"github.com/bwpolicy/bwpolicy/runtime/hostprobe"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// A case is a txtar archive (testdata/cases/NAME.txtar) with:
//
//	-- host --      key value lines: uid, home, passwd_home, hermes_home, cwd, kernel,
//	                bwrap PATH VERSION [OPTION...], env NAME=VALUE, hard_as/hard_cpu/hard_nproc N, cloud NAME
//	-- tree --      one path a line: "dir P", "file P", "file P = CONTENT" (\n and \t escapes), "socket P", "link P -> TARGET",
//	                "denied P" (P and below: out of this user's reach), "unexaminable P" (lstat fails: a symlink loop)
//	-- settings.yaml --   (optional; absent = the embedded defaults)
//	-- flags --     (optional) "profile NAME", "cwd DIR"
//
// Its golden files are golden/NAME.json (the invocation, or nothing when
// refused), golden/NAME.explain.txt and golden/NAME.diags.txt.
type testCase struct {
	name string
	req  *Request
}

// goldenBwrapID is the synthetic identity of the golden hosts' bwrap.
var goldenBwrapID = invocation.FileIdentity{Dev: 2049, Ino: 131090, Size: 72552, MTime: 1700000000000000000}

func loadCase(t *testing.T, file string) testCase {
	t.Helper()
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	tc := testCase{name: strings.TrimSuffix(filepath.Base(file), ".txtar")}
	host := &facts.Host{UID: 1000, Home: "/home/u", Env: map[string]string{}, Kernel: "6.8.0",
		HardAS: facts.Unlimited, HardCPU: facts.Unlimited, HardNProc: 63000, LandlockABI: 6, Arch: "x86_64",
		Bwrap: hostprobe.BwrapInfo{Path: "/usr/bin/bwrap", Version: "0.8.0", Options: map[string]bool{"--disable-userns": true, "--size": true}, Identity: goldenBwrapID}}
	tree := factstest.Tree{"/proc": {Kind: invocation.KindDir}, "/dev": {Kind: invocation.KindDir},
		"/tmp": {Kind: invocation.KindDir}, "/etc": {Kind: invocation.KindDir}}
	req := &Request{Host: host}
	for _, f := range ar.Files {
		switch f.Name {
		case "host":
			parseHost(t, host, string(f.Data))
		case "tree":
			parseTree(t, tree, string(f.Data))
		case "settings.yaml":
			req.File = "settings.yaml"
			req.Source = f.Data
		case "flags":
			for _, line := range lines(string(f.Data)) {
				k, v, _ := strings.Cut(line, " ")
				switch k {
				case "profile":
					req.Profile = v
				case "cwd":
					req.Cwd = v
				default:
					t.Fatalf("%s: unknown flag %q", file, k)
				}
			}
		default:
			t.Fatalf("%s: unknown section %q", file, f.Name)
		}
	}
	if host.HermesHome == "" {
		host.HermesHome = host.Home + "/.hermes"
	}
	if host.ProcessCwd == "" {
		host.ProcessCwd = host.Home + "/proj"
	}
	host.FS = &factstest.Guard{FS: tree} // sealed after the facts stage: later host access panics
	tc.req = req
	return tc
}

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

func parseHost(t *testing.T, h *facts.Host, s string) {
	for _, line := range lines(s) {
		k, v, _ := strings.Cut(line, " ")
		switch k {
		case "uid":
			h.UID, _ = strconv.Atoi(v)
		case "home":
			h.Home = v
		case "passwd_home":
			h.PasswdHome = v
		case "hermes_home":
			h.HermesHome = v
		case "cwd":
			h.ProcessCwd = v
		case "kernel":
			h.Kernel = v
		case "arch":
			h.Arch = v
		case "cloud":
			h.Cloud = v
		case "landlock_abi":
			h.LandlockABI, _ = strconv.Atoi(v)
		case "env":
			name, val, _ := strings.Cut(v, "=")
			h.Env[name] = val
			h.EnvNames = append(h.EnvNames, name)
			h.NoteEnvValue(name, val)
		case "envnames":
			h.EnvNames = append(h.EnvNames, strings.Fields(v)...)
		case "bwrap":
			f := strings.Fields(v)
			h.Bwrap = hostprobe.BwrapInfo{Path: f[0], Version: f[1], Options: map[string]bool{}, Identity: goldenBwrapID}
			for _, o := range f[2:] {
				h.Bwrap.Options[o] = true
			}
		case "no-bwrap":
			h.Bwrap = hostprobe.BwrapInfo{}
		case "hard_as", "hard_cpu", "hard_nproc":
			n, _ := strconv.ParseUint(v, 10, 64)
			switch k {
			case "hard_as":
				h.HardAS = n
			case "hard_cpu":
				h.HardCPU = n
			default:
				h.HardNProc = n
			}
		default:
			t.Fatalf("unknown host key %q", k)
		}
	}
}

func parseTree(t *testing.T, tree factstest.Tree, s string) {
	for _, line := range lines(s) {
		kind, rest, _ := strings.Cut(line, " ")
		switch kind {
		case "dir":
			tree[rest] = facts.Stat{Kind: invocation.KindDir}
		case "file":
			p, content, _ := strings.Cut(rest, " = ")
			tree[p] = facts.Stat{Kind: invocation.KindFile, Content: strings.NewReplacer(`\n`, "\n", `\t`, "\t").Replace(content)}
		case "socket": // "socket PATH", or "socket PATH uid=N" (owned by N; else root)
			p, owner, _ := strings.Cut(rest, " uid=")
			st := facts.Stat{Kind: invocation.KindSocket}
			if owner != "" {
				uid, err := strconv.Atoi(owner)
				if err != nil {
					t.Fatalf("bad socket line %q", line)
				}
				st.UID = uid
			}
			tree[p] = st
		case "denied":
			tree[rest] = facts.Stat{Kind: invocation.KindDenied}
		case "unexaminable":
			tree[rest] = facts.Stat{Kind: invocation.KindOther, Err: errors.New("lstat " + rest + ": too many levels of symbolic links")}
		case "link":
			p, target, ok := strings.Cut(rest, " -> ")
			if !ok {
				t.Fatalf("bad link line %q", line)
			}
			tree[p] = facts.Stat{Kind: invocation.KindSymlink, Target: target}
		default:
			t.Fatalf("unknown tree kind %q", kind)
		}
	}
}

func renderDiags(l diag.List) []byte {
	var b bytes.Buffer
	for _, d := range l {
		fmt.Fprintln(&b, d.String())
		for _, r := range d.Related {
			fmt.Fprintf(&b, "  %s: note: %s\n", r.Pos, r.Message)
		}
	}
	if b.Len() == 0 {
		b.WriteString("(no diagnostics)\n")
	}
	return b.Bytes()
}

func caseFiles(t *testing.T) []string {
	files := testglob.Files(t, "testdata/cases/*.txtar")
	return files
}

// goldenOut is what one case compiles to, as its golden files hold it.
type goldenOut struct {
	diags, json, explain []byte
	profile              string
}

// TestGolden compiles every case and holds its golden files: the
// diagnostics in full; the invocation and its explanation in full for
// the base cases (golden/profile_*: one per profile), as a diff against
// their profile's base for the others (internal/goldentest), so a
// change every invocation shares rewrites the bases only.
func TestGolden(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir("../golden"), goldie.WithNameSuffix(""))
	out := map[string]goldenOut{}
	var names []string
	for _, file := range caseFiles(t) {
		tc := loadCase(t, file)
		res := Compile(context.Background(), tc.req)
		o := goldenOut{diags: renderDiags(res.Diags)}
		if res.Invocation != nil {
			js, err := Marshal(res.Invocation)
			if err != nil {
				t.Fatal(err)
			}
			var ex bytes.Buffer
			WriteExplain(&ex, res)
			o.json, o.explain, o.profile = js, ex.Bytes(), res.Invocation.Profile
		}
		out[tc.name] = o
		names = append(names, tc.name)
	}
	for _, name := range names {
		o := out[name]
		t.Run(name, func(t *testing.T) {
			g.Assert(t, name+".diags.txt", o.diags)
			isBase := strings.HasPrefix(name, goldentest.BasePrefix)
			if !isBase {
				if _, err := os.Stat(filepath.Join("../golden", name+".json")); err == nil {
					t.Errorf("golden/%s.json exists: only the bases (%s*) are kept in full (delete it)", name, goldentest.BasePrefix)
				}
			}
			if o.json == nil {
				for _, f := range []string{name + ".json", name + ".json" + goldentest.DiffSuffix} {
					if _, err := os.Stat(filepath.Join("../golden", f)); err == nil {
						t.Errorf("refused, but golden/%s exists", f)
					}
				}
				return
			}
			if isBase {
				g.Assert(t, name+".json", o.json)
				g.Assert(t, name+".explain.txt", o.explain)
				return
			}
			base := goldentest.BasePrefix + o.profile
			b, ok := out[base]
			if !ok || b.json == nil {
				t.Fatalf("profile %s has no base case %s (testdata/cases/%s.txtar)", o.profile, base, base)
			}
			for _, f := range []struct {
				ext        string
				base, full []byte
			}{{".json", b.json, o.json}, {".explain.txt", b.explain, o.explain}} {
				bt, ft := goldentest.Layout(f.ext, f.base), goldentest.Layout(f.ext, f.full)
				d := goldentest.Diff(bt, ft)
				if got, err := goldentest.Apply(bt, d); err != nil || got != ft {
					t.Fatalf("%s%s: the diff does not rebuild it (%v)", name, f.ext, err)
				}
				g.Assert(t, name+f.ext+goldentest.DiffSuffix, []byte(goldentest.Header(base)+d))
			}
		})
	}
}

// TestNoHostAccessAfterFacts: the golden hosts' FS is sealed when the
// facts stage ends (facts.Guard), so a later stage that read the host
// would panic in TestGolden; here, that the seal happens at all.
func TestNoHostAccessAfterFacts(t *testing.T) {
	tc := loadCase(t, caseFiles(t)[0])
	res := Compile(context.Background(), tc.req)
	if res.Facts == nil {
		t.Fatal("no facts")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("the host's FS answered after the facts stage")
		}
	}()
	tc.req.Host.FS.Lstat("/etc")
}

// TestHomeRowReason: the home layout's HOME row (a real host gives HOME
// a modification time, the golden trees do not) carries the typed
// reason H10 with scope home-layout, and the invocation validates (a
// second spelling of a reason is refused by Validate, and bwrun with it).
func TestHomeRowReason(t *testing.T) {
	tc := loadCase(t, "testdata/cases/profile_workspace.txtar")
	tree := tc.req.Host.FS.(*factstest.Guard).FS.(factstest.Tree)
	st := tree["/home/u"]
	st.Kind, st.MTime = invocation.KindDir, 1700000000
	tree["/home/u"] = st
	res := Compile(context.Background(), tc.req)
	if res.Invocation == nil {
		t.Fatalf("refused: %v", res.Diags)
	}
	if err := invocation.Validate(res.Invocation); err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Invocation.Preconditions {
		if p.Path == "/home/u" && p.Names == nil {
			if p.Why != invocation.ReasonHomeLayout || p.Scope != invocation.ScopeHomeLayout {
				t.Fatalf("HOME's row: why %q scope %q", p.Why, p.Scope)
			}
			return
		}
	}
	t.Fatal("no precondition row for HOME")
}
