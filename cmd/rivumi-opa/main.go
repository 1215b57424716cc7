// Command rivumi-opa is OPA's own command line (run, eval, test, build, …)
// with rivumi's builtins registered: rivumi.parse, which splits a shell
// command into segments with facts as the rivumi engine does, and
// rivumi.redact. Serve a bundle from `rivumi policy build` with
//
//	rivumi-opa run --server --addr 127.0.0.1:8181 --bundle rivumi.tar.gz
//
// and POST {"input": {"command": "…"}} to /v1/data/rivumi/entry/verdict.
// It is a separate binary because linking OPA's command tree slows the
// start-up of the rivumi binary that agent hooks run on every tool call.
// See docs/deploy.md.
package main

import (
	"errors"
	"os"

	"github.com/open-policy-agent/opa/cmd"

	"github.com/rivumi/rivumi/opabuiltin"
)

func main() {
	opabuiltin.Register()
	root := cmd.Command(nil, "rivumi-opa")
	root.Use = "rivumi-opa"
	root.Short = "Open Policy Agent with rivumi's builtins (rivumi.parse, rivumi.redact)"
	if err := root.Execute(); err != nil {
		var e *cmd.ExitError
		if errors.As(err, &e) {
			os.Exit(e.Exit)
		}
		os.Exit(1)
	}
}
