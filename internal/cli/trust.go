package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/grant"
	"github.com/rivumi/rivumi/rules"
	"github.com/rivumi/rivumi/server"
)

func init() {
	register("trust", "trust the project's .rivumi.yaml (its allow rules, grants and switches take effect)", runTrust)
	describe("trust", "[-C DIR] [--revoke | --check] [FILE]", trustHelp)
}

const trustHelp = `A project's .rivumi.yaml comes with the repository, which may be hostile:
until you trust it, rivumi uses only its deny and ask rules. Trusting
records the sha256 of the file and of every file it names (rule files,
policy directories) in $XDG_CONFIG_HOME/rivumi/trusted.json; any change
makes it untrusted again. Review the file before trusting it.`

// noConfigEnv, when set to a non-empty value, makes rivumi ignore the
// user's and the project's configuration files.
const noConfigEnv = "RIVUMI_NO_CONFIG"

type warnKey struct{}

// withWarnings makes configuration warnings go to w (default: os.Stderr).
func withWarnings(ctx context.Context, w io.Writer) context.Context {
	return context.WithValue(ctx, warnKey{}, w)
}

func warnWriter(ctx context.Context) io.Writer {
	if w, ok := ctx.Value(warnKey{}).(io.Writer); ok && w != nil {
		return w
	}
	return os.Stderr
}

// configOptions returns the engine options that the configuration files
// add (see [loadConfigs]). Problems in them make engine.New fail, with
// every problem listed: rivumi never runs on half its configuration.
func (p *policyFlags) configOptions(ctx context.Context) []engine.Option {
	if os.Getenv(noConfigEnv) != "" {
		return nil
	}
	cfgs, problems := loadConfigs(ctx, p.cwd)
	return configProblems(configEngineOptions(cfgs, &problems), problems)
}

func configProblems(opts []engine.Option, problems []string) []engine.Option {
	if len(problems) > 0 {
		opts = append(opts, engine.LoadProblems(problems...))
	}
	return opts
}

// loadConfigs reads the user's configuration file and the project's
// .rivumi.yaml (found from cwd, default the current directory, by walking
// up to the repository root). A project file the user has not trusted
// (`rivumi trust`) keeps only its deny and ask rules; what it loses is
// listed in a warning.
func loadConfigs(ctx context.Context, cwd string) ([]*rules.Config, []string) {
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	cfgs, problems, _ := loadConfigsID(ctx, cwd)
	return cfgs, problems
}

// loadConfigsID is loadConfigs from dir ("": the user's file alone, no
// project) that also returns the configuration's identity: a digest of
// each file's path and contents (the packs it names included), the
// project's trust, and the problems found.
func loadConfigsID(ctx context.Context, dir string) ([]*rules.Config, []string, string) {
	return loadConfigsDeps(ctx, dir, nil)
}

// loadConfigsDeps is loadConfigsID that also adds to deps (when not nil)
// every file and directory the answer was read from (see configDeps).
func loadConfigsDeps(ctx context.Context, dir string, deps *configDeps) ([]*rules.Config, []string, string) {
	var cfgs []*rules.Config
	var problems []string
	id := sha256.New()
	load := func(path string) *rules.Config {
		c, d, derr, err := parsedConfigs.load(path)
		deps.addConfig(path, c)
		problems = append(problems, ruleProblems(err)...)
		fmt.Fprintf(id, "file\x00%s\x00", path)
		if c != nil {
			fmt.Fprintf(id, "%s\x00%v\x00", d, derr)
		}
		return c
	}
	if path, err := rules.UserConfigPath(); err == nil {
		deps.addFile(path) // present or not
		if _, err := os.Stat(path); err == nil {
			if c := load(path); c != nil {
				cfgs = append(cfgs, c)
			}
		}
	}
	done := func() ([]*rules.Config, []string, string) {
		for _, p := range problems {
			fmt.Fprintf(id, "problem\x00%s\x00", p)
		}
		return cfgs, problems, hex.EncodeToString(id.Sum(nil))
	}
	if dir == "" {
		return done()
	}
	path, err := rules.FindProjectConfig(dir)
	deps.foundProject(path, err)
	if err != nil || path == "" {
		fmt.Fprintf(id, "project\x00%v\x00", err)
		return done()
	}
	c := load(path)
	if c == nil {
		return done()
	}
	if sp, err := rules.TrustStorePath(); err == nil {
		deps.addFile(sp)
	}
	trusted := projectTrusted(c)
	fmt.Fprintf(id, "trusted\x00%v\x00", trusted)
	if !trusted {
		kept, dropped := c.Untrusted()
		if len(dropped) > 0 {
			fmt.Fprintf(warnWriter(ctx), "rivumi: warning: %s is not trusted, ignoring: %s (after reviewing it, run `rivumi trust`)\n",
				path, strings.Join(dropped, "; "))
		}
		c = kept
	}
	cfgs = append(cfgs, c)
	return done()
}

// parsedConfigs remembers parsed configuration files, so that finding a
// call's configuration (every serve request) parses YAML only when a file
// changed. An entry is used only when the file's bytes are the same and
// the digest of everything it names (rule files, policy directories) is
// too: a hit is exact.
var parsedConfigs = &configCache{m: map[string]parsedConfig{}}

type configCache struct {
	mu sync.Mutex
	m  map[string]parsedConfig // by path and contents
}

type parsedConfig struct {
	c      *rules.Config
	digest string
}

// load reads the configuration file at path: the parsed file, its digest
// (rules.Config.Digest) or the error computing it, and the parse error.
func (cc *configCache) load(path string) (c *rules.Config, digest string, derr, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, "", nil, err
	}
	key := path + "\x00" + string(b)
	cc.mu.Lock()
	pc, ok := cc.m[key]
	cc.mu.Unlock()
	if ok {
		if d, err := pc.c.Digest(); err == nil && d == pc.digest {
			return pc.c, d, nil, nil
		}
	}
	c, err = rules.ParseConfig(path, b)
	if c == nil {
		return nil, "", nil, err
	}
	digest, derr = c.Digest()
	if err == nil && derr == nil {
		cc.mu.Lock()
		if len(cc.m) >= 64 {
			cc.m = map[string]parsedConfig{} // bounded: start over
		}
		cc.m[key] = parsedConfig{c: c, digest: digest}
		cc.mu.Unlock()
	}
	return c, digest, derr, err
}

// configFor is the [server.ConfigFunc] of the policy flags: the
// configuration found from dir, named by its identity, and the engine it
// compiles to (with the flags' packs and deadline). Warnings about the
// configuration are printed when its engine is compiled, not on every
// call.
func (p *policyFlags) configFor(ctx context.Context, dir string) (string, server.LoadFunc, error) {
	if os.Getenv(noConfigEnv) != "" {
		return "none", func(ctx context.Context) (*engine.Engine, error) { return p.newEngineWith(ctx, nil) }, nil
	}
	f := foundConfigs.find(ctx, dir)
	load := func(ctx context.Context) (*engine.Engine, error) {
		io.WriteString(warnWriter(ctx), f.warnings)
		probs := append([]string(nil), f.problems...)
		return p.newEngineWith(ctx, configProblems(configEngineOptions(f.cfgs, &probs), probs))
	}
	return f.id, load, nil
}

// projectTrusted reports whether the trust store holds c's current digest.
func projectTrusted(c *rules.Config) bool {
	digest, err := c.Digest()
	if err != nil {
		return false
	}
	sp, err := rules.TrustStorePath()
	if err != nil {
		return false
	}
	s, err := rules.LoadTrust(sp)
	return err == nil && s.IsTrusted(c.Path, digest)
}

func ruleProblems(err error) []string {
	var re *rules.RuleError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &re):
		return re.Problems
	}
	return []string{err.Error()}
}

// configEngineOptions turns configurations into engine options. Grants
// that could run anything (see grant.Check), a program the configurations
// describe as running anything included, are problems.
func configEngineOptions(cfgs []*rules.Config, problems *[]string) []engine.Option {
	var opts []engine.Option
	var described []rules.TeamProgram
	for _, c := range cfgs {
		described = append(described, c.Programs...)
	}
	team, _ := rules.NewTeamPrograms(described) // their problems are the engine's to report
	for _, c := range cfgs {
		for _, d := range c.Policies {
			opts = append(opts, engine.UserDir(d))
		}
		if len(c.Rules) > 0 {
			opts = append(opts, engine.YAMLRules(c.Rules...))
		}
		if len(c.Programs) > 0 {
			opts = append(opts, engine.TeamPrograms(c.Programs...))
		}
		for _, s := range c.Disable {
			opts = append(opts, engine.Disable(engine.Switch{ID: s.ID, Reason: s.Reason, Where: c.Where(s.Line)}))
		}
		for _, g := range c.Grants {
			eg := engine.Grant{Prefix: g.Prefix, Rules: g.Rules}
			if err := grant.Check(eg); err != nil {
				*problems = append(*problems, fmt.Sprintf("%s: %v", c.Where(g.Line), err))
				continue
			}
			if len(g.Prefix) > 0 && team.RunsAnything(path.Base(g.Prefix[0])) {
				*problems = append(*problems, fmt.Sprintf("%s: grant for `%s` refused: a program description says it runs anything (runs_anything)",
					c.Where(g.Line), strings.Join(g.Prefix, " ")))
				continue
			}
			opts = append(opts, engine.StandingGrants(c.Where(g.Line), eg))
		}
	}
	if len(opts) > 0 {
		if dir, err := os.UserCacheDir(); err == nil {
			opts = append(opts, engine.ExampleCache(filepath.Join(dir, "rivumi", "examples")))
		}
	}
	return opts
}

func runTrust(ctx context.Context, stdio Stdio, args []string) error {
	fs := newFlags("trust", stdio)
	dir := fs.String("C", "", "find the project file from `DIR` (default: the current directory)")
	revoke := fs.Bool("revoke", false, "forget the trust given to the file")
	check := fs.Bool("check", false, "only report whether the file is trusted (exit 0) or not (exit 1)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return exitf(ExitError, "trust: at most one file")
	}
	path := fs.Arg(0)
	if path == "" {
		start := *dir
		if start == "" {
			start, _ = os.Getwd()
		}
		p, err := rules.FindProjectConfig(start)
		if err != nil {
			return exitf(ExitError, "trust: %v", err)
		}
		if p == "" {
			return exitf(ExitError, "trust: no %s at the root of a repository above %s", rules.ProjectConfigName, start)
		}
		path = p
	}
	path, err := filepath.Abs(path)
	if err != nil {
		return exitf(ExitError, "trust: %v", err)
	}
	sp, err := rules.TrustStorePath()
	if err != nil {
		return exitf(ExitError, "trust: %v", err)
	}
	store, err := rules.LoadTrust(sp)
	if err != nil {
		return exitf(ExitError, "trust: %v", err)
	}
	if *revoke {
		ok, err := store.Revoke(path)
		if err != nil {
			return exitf(ExitError, "trust: %v", err)
		}
		if !ok {
			return exitf(ExitError, "trust: %s was not trusted", path)
		}
		fmt.Fprintf(stdio.Out, "no longer trusted: %s\n", path)
		return nil
	}
	c, err := rules.LoadConfig(path)
	ps := ruleProblems(err)
	if len(ps) == 0 {
		// Load it as trusted, to refuse now what would stop rivumi later.
		opts := configEngineOptions([]*rules.Config{c}, &ps)
		if _, err := engine.New(ctx, opts...); err != nil {
			ps = append(ps, policyErrorProblems(err)...)
		}
	}
	if len(ps) > 0 {
		return exitf(ExitPolicyError, "trust: %s has problems, not trusted:\n%s", path, strings.Join(ps, "\n"))
	}
	digest, err := c.Digest()
	if err != nil {
		return exitf(ExitError, "trust: %v", err)
	}
	if *check {
		if store.IsTrusted(path, digest) {
			fmt.Fprintf(stdio.Out, "trusted: %s\n", path)
			return nil
		}
		if _, was := store.Trusted[path]; was {
			return exitf(ExitError, "%s changed since it was trusted", path)
		}
		return exitf(ExitError, "%s is not trusted", path)
	}
	if err := store.Trust(path, digest); err != nil {
		return exitf(ExitError, "trust: %v", err)
	}
	fmt.Fprintf(stdio.Out, "trusted: %s (%s)\n", path, digest)
	fmt.Fprintln(stdio.Out, summarize(c))
	return nil
}

// summarize says what a trusted project file now adds.
func summarize(c *rules.Config) string {
	count := map[string]int{}
	for _, r := range c.Rules {
		count[r.Decision]++
	}
	parts := []string{
		plural(count["deny"], "deny rule"), plural(count["ask"], "ask rule"), plural(count["allow"], "allow rule"),
		plural(len(c.Policies), "policy directory"), plural(len(c.Disable), "switch"), plural(len(c.Grants), "grant"),
	}
	if len(c.Programs) > 0 {
		parts = append(parts, plural(len(c.Programs), "program description"))
	}
	return "it adds " + strings.Join(parts, ", ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	switch {
	case strings.HasSuffix(what, "y"):
		what = strings.TrimSuffix(what, "y") + "ies"
	case strings.HasSuffix(what, "ch"):
		what += "es"
	default:
		what += "s"
	}
	return fmt.Sprintf("%d %s", n, what)
}
