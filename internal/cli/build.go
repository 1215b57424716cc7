package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/opabuiltin"
)

func init() {
	register("policy build", "write an OPA bundle of the packs (and user packs) for rivumi-opa", runBuild)
}

const buildUsage = `Usage: rivumi policy build -o BUNDLE.tar.gz [--policy DIR]...

Writes an OPA bundle (manifest roots ["rivumi"]) holding the built-in
packs, the user packs, their data, rule metadata, the entrypoint
data.rivumi.entry.verdict and the decision log mask data.rivumi.log.mask.
Serve it with 'rivumi-opa run --server --bundle BUNDLE.tar.gz' (OPA with
the rivumi.parse builtin); see docs/deploy.md.

Flags:
`

func runBuild(ctx context.Context, stdio Stdio, args []string) error {
	fs := newFlags("policy build", stdio)
	var pf policyFlags
	fs.Var(&pf.policyDirs, "policy", "directory of user Rego packs (package rivumi.user…); repeatable")
	out := fs.String("o", "", "write the bundle to `FILE` (- for stdout)")
	fs.Usage = func() { fmt.Fprint(fs.Output(), buildUsage); fs.PrintDefaults() }
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() > 0 {
		fs.Usage()
		return exitf(ExitError, "policy build: name the output with -o FILE")
	}
	var opts []engine.Option
	for _, d := range pf.policyDirs {
		opts = append(opts, engine.UserDir(d))
	}
	src, err := engine.LoadSources(ctx, opts...)
	if err != nil {
		var pe *engine.PolicyError
		if errors.As(err, &pe) {
			return exitf(ExitPolicyError, "%s", strings.Join(pe.Problems, "\n"))
		}
		return exitf(ExitPolicyError, "%v", err)
	}
	b, err := opabuiltin.Bundle(src)
	if err != nil {
		return exitf(ExitPolicyError, "policy build: %v", err)
	}
	// The bundle must grade before it ships: the floor is denied.
	if d, err := opabuiltin.Check(ctx, b, "rm -rf /"); err != nil || d != "deny" {
		return exitf(ExitPolicyError, "policy build: the bundle does not deny `rm -rf /` (%q, %v)", d, err)
	}
	if *out == "-" {
		return opabuiltin.Write(stdio.Out, b)
	}
	tmp, err := os.CreateTemp(filepath.Dir(*out), "."+filepath.Base(*out)+".tmp*")
	if err != nil {
		return exitf(ExitError, "policy build: %v", err)
	}
	defer os.Remove(tmp.Name())
	if err := opabuiltin.Write(tmp, b); err != nil {
		tmp.Close()
		return exitf(ExitError, "policy build: %v", err)
	}
	if err := tmp.Close(); err != nil {
		return exitf(ExitError, "policy build: %v", err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return exitf(ExitError, "policy build: %v", err)
	}
	if err := os.Rename(tmp.Name(), *out); err != nil {
		return exitf(ExitError, "policy build: %v", err)
	}
	fmt.Fprintf(stdio.Err, "wrote %s: %d modules, policy %s, entrypoint /v1/data/%s\n", *out, len(b.Modules), src.Hash, opabuiltin.Entrypoint)
	return nil
}
