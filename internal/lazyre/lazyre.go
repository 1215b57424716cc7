// Package lazyre compiles regular expressions on first use instead of at
// package initialisation.
//
// Every rivumi process runs the initialisation of every package linked
// into the binary, whatever its subcommand: a package-level
// regexp.MustCompile costs all of them (a hook call, `rivumi version`)
// the compile and its garbage. [New] defers it to the first call. The
// check that a pattern compiles, which initialisation did at every start,
// is a test instead: TestPatternsCompile compiles every constant pattern
// given to [New] in the module, and fails on a package-level
// regexp.MustCompile.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr on its first call and returns
// that same *regexp.Regexp from then on. It panics, as regexp.MustCompile
// does, when expr does not compile. The function is safe for concurrent
// use; a [regexp.Regexp] is too.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
