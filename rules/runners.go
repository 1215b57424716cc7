package rules

import (
	"strings"

	"github.com/rivumi/rivumi/programs"
)

// RunsAnything reports whether prog (a basename, in any case, with or
// without ".exe" or a version suffix) runs whatever it is handed: a shell,
// an interpreter, a wrapper that runs its arguments (the registry's
// runs_anything). Granting such a program is granting everything, so grants
// for it are refused and never applied.
func RunsAnything(prog string) bool {
	p := programs.Lookup(strings.TrimSuffix(strings.ToLower(prog), ".exe"))
	if p == nil {
		p = runnerByVersion(prog)
	}
	return p != nil && p.RunsAnything
}

// runnerByVersion finds a runs-anything entry for a versioned spelling of a
// name the registry does not mark versioned (ruby3.2, perl5.36): grant
// refusal errs on the side of refusing.
func runnerByVersion(prog string) *programs.Program {
	n := strings.TrimSuffix(strings.ToLower(prog), ".exe")
	// Every cut of a trailing run of version characters: run03 is run0
	// with a version, as linux643.12 is linux64.
	for i := len(n) - 1; i > 0 && strings.ContainsRune("0123456789.-_", rune(n[i])); i-- {
		if p := programs.Lookup(n[:i]); p != nil && p.RunsAnything {
			return p
		}
	}
	return nil
}

// RunnerSubcommands returns the subcommands of prog that run an arbitrary
// package or command (npm exec, docker run), or nil.
func RunnerSubcommands(prog string) []string {
	if p := programs.Lookup(prog); p != nil {
		return p.RunnerSubcommands
	}
	return nil
}
