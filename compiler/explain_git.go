package compiler

import (
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/bwpolicy/bwpolicy/facts"
)

// writeGitRepos explains, for each writable directory that holds git
// repositories (H9), which of them the compile binds read-only (their
// config and hooks, while a command runs) and what is left to the
// environment's ledger and bwrun's post-command scan: repositories past
// the compile's bound, those protect.allow leaves writable, those behind
// a symlink, and whatever a command creates. Nothing is written when no
// writable directory holds a repository.
func writeGitRepos(w io.Writer, f *facts.Facts) {
	type dirRepos struct {
		bound, allowed, linked []string
		whole                  bool // protect.git: read-only binds the whole .git
	}
	var roots []string
	by := map[string]*dirRepos{}
	for _, p := range f.Protected {
		g := ""
		switch {
		case p.Name == ".git":
			g = p.Path
		case p.Name == ".git/config" || p.Name == ".git/hooks":
			g = path.Dir(p.Path)
		default:
			continue
		}
		d := by[p.Root]
		if d == nil {
			d = &dirRepos{}
			by[p.Root] = d
			roots = append(roots, p.Root)
		}
		d.whole = d.whole || p.Name == ".git" && !p.Allowed && !p.Symlink
		name := repoName(p.Root, g)
		list := &d.bound
		switch {
		case p.Symlink:
			list = &d.linked
		case p.Allowed:
			list = &d.allowed
		}
		if !slices.Contains(*list, name) {
			*list = append(*list, name)
		}
	}
	for _, r := range f.ProtectedTruncated {
		if by[r] == nil {
			by[r] = &dirRepos{}
			roots = append(roots, r)
		}
	}
	if len(roots) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "git repositories in the writable set (H9):")
	for _, r := range roots {
		d := by[r]
		// A repository with one entry allowed and the other bound is
		// partly covered each way: it is listed under both.
		fmt.Fprintf(w, "  %s:\n", r)
		what := "config and hooks"
		if d.whole {
			what = "the whole .git, protect.git: read-only"
		}
		fmt.Fprintf(w, "    bound read-only while a command runs (%s): %s\n", what, orNone(clipList(d.bound, 12), "none"))
		if len(d.allowed) > 0 {
			fmt.Fprintf(w, "    left writable by protect.allow, covered by the ledger and the post-command scan: %s\n", clipList(d.allowed, 12))
		}
		if len(d.linked) > 0 {
			fmt.Fprintf(w, "    not bound (a symlink on the way), covered by the ledger and the post-command scan: %s\n", clipList(d.linked, 12))
		}
		if slices.Contains(f.ProtectedTruncated, r) {
			fmt.Fprintln(w, "    past the compile's bound (more repositories, linked worktrees or entries than it binds read-only): every other repository, covered by the ledger and the post-command scan")
		}
	}
	fmt.Fprintln(w, "  covered by the ledger and the post-command scan: what is not bound read-only above, and every repository a command creates. After every command bwrun sets aside what a later host git would run that the environment's ledger (beside the invocation) does not hold; `bwpolicy trust` adds a file to it")
}

// repoName is how the explanation names the repository whose git
// directory is g, inside writable directory root: its worktree relative
// to root ("." for root itself) for a ".git" directory, else the git
// directory relative to root.
func repoName(root, g string) string {
	if path.Base(g) == ".git" {
		g = path.Dir(g)
	}
	if g == root {
		return "."
	}
	return strings.TrimPrefix(g, root+"/")
}
