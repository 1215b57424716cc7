package cli

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	opaversion "github.com/open-policy-agent/opa/v1/version"
)

func init() {
	register("version", "print rivumi's module version, the OPA and Go versions and the policy hash", runVersion)
	helps["version"] = help{
		synopsis: "[flags]",
		description: `Prints rivumi's module version (with the VCS revision it was built
from, when known), the OPA version it embeds, the Go version, and the
hash of the policy that 'policy eval' would use here: the built-in packs,
the --policy packs and the configuration files. Verdicts carry the same
hash in their "policy" field. 'rivumi --version' is the same.`,
		examples: helps["version"].examples,
	}
}

func runVersion(ctx context.Context, stdio Stdio, args []string) error {
	fs := newFlags("version", stdio)
	var pf policyFlags
	fs.Var(&pf.policyDirs, "policy", "directory of user Rego packs (package rivumi.user…); repeatable")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return exitf(ExitError, "version: unexpected arguments %q", fs.Args())
	}
	fmt.Fprintf(stdio.Out, "rivumi %s\nopa    %s\ngo     %s\n", moduleVersion(), opaversion.Version, runtime.Version())
	e, err := pf.newEngine(ctx)
	if err != nil {
		fmt.Fprintln(stdio.Out, "policy (does not load)")
		return err
	}
	fmt.Fprintf(stdio.Out, "policy %s\n", e.PolicyHash())
	return nil
}

// moduleVersion is the main module's version as the Go toolchain recorded
// it ("(devel)" for a plain build in a work tree), with the VCS revision
// when the build stamped one.
func moduleVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+dirty"
			}
		}
	}
	if rev != "" && len(rev) > 12 {
		rev = rev[:12]
	}
	// Go 1.24 and later put the revision in a pseudo-version already.
	if rev != "" && !strings.Contains(v, rev) {
		v += " (" + rev + modified + ")"
	}
	return v
}
