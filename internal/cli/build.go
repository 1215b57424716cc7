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
	describe("policy build", "-o BUNDLE.tar.gz [--policy DIR]... [--signing-key KEY]", buildHelp)
}

const buildHelp = `Writes an OPA bundle (manifest roots ["rivumi"]) holding the built-in
packs, the user packs, their data, rule metadata, the entrypoint
data.rivumi.entry.verdict and the decision log mask data.rivumi.log.mask.
Serve it with 'rivumi-opa run --server --bundle BUNDLE.tar.gz' (OPA with
the rivumi.parse builtin); see docs/deploy.md.

The revision (the policy hash) depends on the sources only: a --policy
directory is named by its path in its git repository (or by its own name
outside one), never by the path given on the command line. With
--signing-key the bundle carries .signatures.json, as 'opa build
--signing-key' writes it; OPA verifies it with --verification-key.`

func runBuild(ctx context.Context, stdio Stdio, args []string) error {
	fs := newFlags("policy build", stdio)
	var pf policyFlags
	fs.Var(&pf.policyDirs, "policy", "directory of user Rego packs (package rivumi.user…); repeatable")
	out := fs.String("o", "", "write the bundle to `FILE` (- for stdout)")
	var sign opabuiltin.Signing
	fs.StringVar(&sign.Key, "signing-key", "", "sign the bundle with the private `KEY` (a PEM file, or an HMAC secret for HS*)")
	fs.StringVar(&sign.Algorithm, "signing-alg", "RS256", "signing `ALGORITHM` (RS256, PS256, ES256, HS256, … as OPA)")
	fs.StringVar(&sign.KeyID, "signing-key-id", "", "the key `ID` verifiers pick the public key by (the token's keyid claim)")
	fs.StringVar(&sign.ClaimsFile, "claims-file", "", "JSON `FILE` of extra claims for the signature (e.g. scope)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() > 0 {
		return exitf(ExitError, "policy build: name the output with -o FILE")
	}
	var opts []engine.Option
	for _, d := range pf.policyDirs {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			opts = append(opts, engine.UserFS(packName(d), os.DirFS(d)))
		} else {
			opts = append(opts, engine.UserDir(d)) // reports the problem
		}
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
	signed := ""
	if sign.Key != "" {
		if err := opabuiltin.Sign(b, sign); err != nil {
			return exitf(ExitError, "policy build: %v", err)
		}
		signed = ", signed (" + sign.Algorithm + ")"
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
	fmt.Fprintf(stdio.Err, "wrote %s: %d modules, policy %s, entrypoint /v1/data/%s%s\n", *out, len(b.Modules), src.Hash, opabuiltin.Entrypoint, signed)
	return nil
}

// packName names a user pack directory in the bundle (and so in the policy
// hash, the bundle's revision) by what does not depend on where the build
// runs: its path inside its git repository (the nearest .git above it), or
// its own base name outside one (a checkout's own directory name differs
// between machines, so the root of a repository is ".").
func packName(dir string) string {
	a, err := filepath.Abs(dir)
	if err != nil {
		return filepath.ToSlash(filepath.Clean(dir))
	}
	for d := a; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			rel, err := filepath.Rel(d, a)
			if err != nil {
				return filepath.Base(a)
			}
			return filepath.ToSlash(rel) // "." at the repository's root

		}
		if filepath.Dir(d) == d {
			return filepath.Base(a)
		}
	}
}
