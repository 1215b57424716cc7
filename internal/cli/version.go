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
		description: `Prints rivumi's version (a release's tag, as the release build stamped
it, or the module version Go recorded, with the VCS revision it was built
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

// ReleaseVersion is the release's semantic version, set by the command's
// main package from its link-time stamp (scripts/release links with
// -ldflags "-X main.version=$(git describe --tags)"). Empty for a build
// that was not stamped: then the version the Go toolchain recorded is
// shown (the tag for `go install …@vX.Y.Z`, "(devel)" in a work tree).
var ReleaseVersion string

// moduleVersion is ReleaseVersion when the build was stamped, else the
// main module's version as the Go toolchain recorded it ("(devel)" for a
// plain build in a work tree); with the VCS revision when the build
// recorded one and the version does not already name it.
func moduleVersion() string {
	return formatVersion(ReleaseVersion, debug.ReadBuildInfo)
}

// formatVersion is moduleVersion with its inputs passed in, for tests.
func formatVersion(stamped string, read func() (*debug.BuildInfo, bool)) string {
	bi, ok := read()
	if !ok {
		if stamped != "" {
			return stamped
		}
		return "(unknown)"
	}
	v := bi.Main.Version
	if stamped != "" {
		v = stamped
	}
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
	// Go 1.24 and later put the revision in a pseudo-version already;
	// git describe names it with a g and at least 7 hex digits.
	if rev != "" && !strings.Contains(v, rev) && !(len(rev) >= 7 && strings.Contains(v, "-g"+rev[:7])) {
		v += " (" + rev + modified + ")"
	}
	return v
}
