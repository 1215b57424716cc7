// Command rivumi-opa is OPA's own command line (run, eval, test, build, …)
// with rivumi's builtins registered: rivumi.parse, which splits a shell
// command into segments with facts as the rivumi engine does, and
// rivumi.redact. Serve a bundle from `rivumi policy build` with
//
//	rivumi-opa run --server --bundle rivumi.tar.gz
//
// `run` listens on localhost:8283 unless told otherwise (OPA's own default
// is 8181, and a rivumi-opa beside an OPA must not take its port; `rivumi
// serve` defaults to 8282).
//
// and POST {"input": {"command": "…"}} to /v1/data/rivumi/entry/verdict.
// It is a separate binary because linking OPA's command tree slows the
// start-up of the rivumi binary that agent hooks run on every tool call.
// See docs/deploy.md.
package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"github.com/open-policy-agent/opa/cmd"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rivumi/rivumi/opabuiltin"
)

func main() {
	opabuiltin.Register()
	root := cmd.Command(nil, "rivumi-opa")
	root.Use = "rivumi-opa"
	root.Short = "Open Policy Agent with rivumi's builtins (rivumi.parse, rivumi.redact)"
	if err := setDefaultAddr(root, DefaultAddr); err != nil {
		fmt.Fprintln(os.Stderr, "rivumi-opa:", err)
		os.Exit(1)
	}
	if err := addVersion(root, rivumiVersion(version, debug.ReadBuildInfo)); err != nil {
		fmt.Fprintln(os.Stderr, "rivumi-opa:", err)
		os.Exit(1)
	}
	if err := root.Execute(); err != nil {
		var e *cmd.ExitError
		if errors.As(err, &e) {
			os.Exit(e.Exit)
		}
		os.Exit(1)
	}
}

// version is the release's tag, stamped at link time by scripts/release
// (-ldflags "-X main.version=v1.2.3"); empty in any other build.
var version string

// addVersion makes `version` print "rivumi-opa V" before OPA's own
// version lines, so a replica tells which rivumi it runs.
func addVersion(root *cobra.Command, v string) error {
	c, _, err := root.Find([]string{"version"})
	if err != nil || c == root || c.RunE == nil {
		return errors.New("no version command")
	}
	opa := c.RunE
	c.RunE = func(cmd *cobra.Command, args []string) error {
		fmt.Fprintln(cmd.OutOrStdout(), "rivumi-opa "+v)
		return opa(cmd, args)
	}
	return nil
}

// rivumiVersion is the stamped release version, else the module version
// Go recorded ("(devel)" in a work tree), with the VCS revision when the
// build recorded one and the version does not already name it.
func rivumiVersion(stamped string, read func() (*debug.BuildInfo, bool)) string {
	v := stamped
	bi, ok := read()
	if !ok {
		if v == "" {
			v = "(unknown)"
		}
		return v
	}
	if v == "" {
		v = bi.Main.Version
	}
	if v == "" {
		v = "(devel)"
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 && !strings.Contains(v, s.Value[:7]) {
			v += " (" + s.Value[:12] + ")"
		}
	}
	return v
}

// DefaultAddr is where `rivumi-opa run` listens without --addr.
const DefaultAddr = "localhost:8283"

// setDefaultAddr makes addr the default of `run --addr`, leaving the flag
// unchanged in OPA's eyes (so a configuration's or OPA_ADDR's address and
// an explicit --addr still win as in OPA).
func setDefaultAddr(root *cobra.Command, addr string) error {
	for _, c := range root.Commands() {
		if c.Name() != "run" {
			continue
		}
		f := c.Flags().Lookup("addr")
		if f == nil {
			return errors.New("run has no --addr flag")
		}
		sv, ok := f.Value.(pflag.SliceValue)
		if !ok {
			return fmt.Errorf("run --addr is a %s, not a list", f.Value.Type())
		}
		if err := sv.Replace([]string{addr}); err != nil {
			return err
		}
		f.DefValue = "[" + addr + "]"
		return nil
	}
	return errors.New("no run command")
}
