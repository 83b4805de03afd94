// Package layers holds the test that keeps the packages' direction: the
// compile side (facts, compiler, policy, verify) never imports the
// launcher (runtime), and the hazard knowledge packages import nothing
// of ours but each other and the invocation format. It has no code of
// its own.
package layers
