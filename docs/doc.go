// Package docs holds no code: its tests keep the documentation (README.md,
// BENCHMARKS.md and the pages of this directory) true to the repository.
// They check that docs/architecture.md names every package that exists
// and no other, that every file, symbol and test a page names exists,
// that docs/protections.md has a section for every S and H rule ID of
// the catalogue, that docs/settings.md has a row for every settings key,
// and that the README stays short. They read files only: no package of
// bwpolicy is imported.
package docs
