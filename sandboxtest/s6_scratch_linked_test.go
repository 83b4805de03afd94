package sandboxtest

import (
	"os"
	"testing"
)

// S6 (Hermes' test_temp_variables_are_retargeted_with_a_symlinked_hermes_home,
// issue 30 S28): HERMES_HOME and the temporary-directory variables name
// the Hermes home through symlinks ({base}/hh-link -> {hermes}, and
// {base}/home-link -> {home}), compiled with a sandbox ID. Each variable
// that names the shared scratch, by any spelling, is the environment's
// private scratch at its real path: mktemp works there and the file
// reaches the host's private scratch. Control: in the same sandbox, the
// variable as the host spelled it reaches the shared scratch, which the
// sandbox holds only as a read-only mount point, so mktemp fails there:
// left as it was (what the compile did when it compared spellings), every
// temporary file of the command failed.
func testScratchLinkedHermesHome(t *testing.T, f *fixture) {
	for link, target := range map[string]string{"{base}/hh-link": "{hermes}", "{base}/home-link": "{home}"} {
		if err := os.Symlink(f.expand(target), f.expand(link)); err != nil {
			t.Fatal(err)
		}
	}
	f.chown(f.base)
	private := "{scratch}/hermes-bwrap-a"
	for _, hermesHome := range []string{"{base}/hh-link", "{hermes}"} {
		env := []string{"HERMES_HOME=" + hermesHome, "TMPDIR={base}/hh-link/cache/scratch",
			"TMP={base}/home-link/.hermes/cache/scratch/", "TEMP=" + hermesHome + "/cache/scratch"}
		inv, _ := f.compile("sandbox_id: a\n", call{env: env})
		r := f.bwrun(inv, `
val vars 'echo $TMPDIR $TMP $TEMP'
val made 'm=$(mktemp) && echo made > "$m" && echo "$m" > "$TMPDIR/name-{tag}" && dirname "$m"'
ok as_spelled 'TMPDIR={base}/hh-link/cache/scratch mktemp'
`, call{env: env})
		f.expect(r, want{"vars": private + " " + private + " " + private, "made": private, "as_spelled": "no"})
		name := f.hostRead(private + "/name-{tag}")
		if len(name) < 2 || f.hostRead(name[:len(name)-1]) != "made\n" {
			t.Errorf("HERMES_HOME=%s: the temporary file %q did not reach the host's private scratch", f.expand(hermesHome), name)
		}
	}
}
