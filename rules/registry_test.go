package rules_test

import (
	"testing"

	"github.com/rivumi/rivumi/programs"
	"github.com/rivumi/rivumi/rules"
)

// TestRegistryViewsAgree: the views derived from the program registry say
// what it says: every name of an entry with options has that spec (a
// versioned alias too), with each code option taking a value; every
// program that runs code is refused as a grant; what it loads is project
// code.
func TestRegistryViewsAgree(t *testing.T) {
	for _, p := range programs.All() {
		for _, n := range p.Names {
			names := []string{n}
			if p.Versioned {
				names = append(names, n+"3.12")
			}
			for _, name := range names {
				if p.RunsAnything != rules.RunsAnything(name) {
					t.Errorf("%s: registry runs_anything %v, rules.RunsAnything %v", name, p.RunsAnything, rules.RunsAnything(name))
				}
				if p.Subcommands != rules.HasSubcommands(name) && p.Subcommands {
					t.Errorf("%s: registry subcommands, rules.HasSubcommands false", name)
				}
				if p.Options == "" {
					continue
				}
				s := rules.ProgramSpec(name)
				if s == nil {
					t.Errorf("%s: registry options, no rules.ProgramSpec", name)
					continue
				}
				if s.InOrder != p.InOrder || s.Abbrev != p.Abbrev || s.SingleDashLong != p.SingleDashLong || s.FoldCase != p.FoldCase {
					t.Errorf("%s: spec syntax differs from the registry", name)
				}
				for _, c := range p.CodeOptions {
					o, ok := s.LookupLong(c)
					if !ok && len(c) == 1 {
						o, ok = s.Short[c[0]]
					}
					if !ok || o.Canon != c || o.Arg != rules.ArgRequired {
						t.Errorf("%s: code option %s is not a value-taking option of its spec (%+v, %v)", name, c, o, ok)
					}
				}
			}
		}
		for _, f := range p.Loads {
			// What a shim loads runs when any program it stands in for
			// starts: project code. What another loader loads is a
			// workspace file (the loader asks when it runs).
			if p.Shim && (!rules.IsProjectCode(f) || !rules.IsProjectCode("sub/dir/"+f)) {
				t.Errorf("%s (a shim) loads %s, which is not project code", p.Name, f)
			}
		}
	}
}
