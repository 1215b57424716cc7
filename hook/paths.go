package hook

import (
	"errors"
	"fmt"
	"os"
	"path"
	"strings"
	"syscall"

	"github.com/rivumi/rivumi/internal/realpath"
	"github.com/rivumi/rivumi/internal/winpath"
	"github.com/rivumi/rivumi/parser"
	"github.com/rivumi/rivumi/verdict"
)

// Op is what a file tool does with a path.
type Op int

const (
	// OpRead: the tool reads the file (Read, read_file, Grep …).
	OpRead Op = iota
	// OpWrite: the tool creates, changes or deletes the file (Write, Edit …).
	OpWrite
)

func (o Op) String() string {
	if o == OpWrite {
		return "write"
	}
	return "read"
}

// Path policy rule ids. They mirror the shell path policy of the packs
// (fs.protected-write, fs.write-outside, fs.read-secret) for file tools.
const (
	RuleProtectedWrite    = "path.protected-write"
	RuleProtectedPattern  = "path.protected-pattern"
	RuleCriticalWrite     = "path.critical-write"
	RuleWriteOutside      = "path.write-outside"
	RuleAgentScratch      = "path.agent-scratch"
	RuleInstructionsWrite = "path.instructions-write"
	RuleWriteWorkspace    = "path.write-workspace"
	RuleProjectCodeWrite  = "path.project-code-write"
	RuleReadSecret        = "path.read-secret"
	RuleRead              = "path.read"
	RuleBadPath           = "path.unresolvable"
)

// PolicyID stands in for the policy hash in path policy verdicts.
const PolicyID = "path-policy"

// Classes the path policy treats alike; protectedClasses is the set of the
// same name in policies/lib/segment.rego (a test keeps them in sync).
var (
	protectedClasses = map[string]bool{
		parser.ClassGit: true, parser.ClassAgentConfig: true, parser.ClassRC: true,
		parser.ClassSSH: true, parser.ClassCI: true, parser.ClassEnvrc: true,
	}
	// The parser's secret classes (parser.SecretClasses, the one list the
	// packs read too), and devices, which a file tool must not read either.
	secretClasses = func() map[string]bool {
		m := map[string]bool{parser.ClassDevice: true}
		for _, c := range parser.SecretClasses {
			m[c] = true
		}
		return m
	}()
	// Writes here are floor shapes in the shell (or make no sense for a file tool).
	criticalClasses = map[string]bool{
		parser.ClassCredentials: true, parser.ClassDevice: true, parser.ClassNet: true,
		parser.ClassRoot: true, parser.ClassHome: true, parser.ClassSystemTop: true,
	}
)

// PathPolicy grades file tool calls with the same classes as shell write
// targets. Paths are resolved before they are classed: relative paths
// against the cwd, then every symlink along the way (dangling ones too),
// and both the path as written and the resolved one are judged; the
// stricter decision wins.
//
//   - writes into .git/, agent and rivumi configuration (.claude/, .gemini/,
//     .codex/, …), shell rc files, ~/.ssh, CI workflows, .envrc, or a
//     Protected pattern: deny;
//   - writes onto credentials files, devices, /, ~ itself, top-level
//     system directories: deny;
//   - other writes outside the workspace: ask;
//   - reads of secrets (.env, keys, *.pem, cloud credentials, ~/.ssh) or
//     of a Secrets pattern: ask;
//   - everything else: allow.
type PathPolicy struct {
	// Workspace is the absolute project root.
	Workspace string
	// Home is the user's home directory ("" when unknown).
	Home string
	// Protected are globs (see [Match]) writes to which are denied.
	// Relative patterns are matched against the path relative to the
	// workspace; "~/" patterns against home; absolute ones as they are.
	Protected []string
	// Secrets are globs, as Protected, reads of which ask.
	Secrets []string
	// Scratch are globs, as Protected, of the agent's own scratch space
	// (Gemini CLI's plan directory): writes there are allowed though
	// they fall in agent configuration, unless a Protected pattern or
	// the resolved path (a symlink out) says otherwise.
	Scratch []string
	// Windows takes the paths (name, cwd, Workspace, Home) in Windows
	// spellings and judges them in the slash form of [winpath.ToSlash]
	// (C:\Users\x → /c/Users/x); a path it refuses (UNC, streams, 8.3
	// names, C:x) is denied as unresolvable.
	Windows bool
}

// Check grades one file tool access of name, relative to cwd.
func (p *PathPolicy) Check(op Op, name, cwd string) verdict.Verdict {
	v, err := p.check(op, name, cwd)
	if err != nil {
		return pathVerdict(verdict.Deny, verdict.LayerEngine, RuleBadPath, name,
			"Unresolvable path", fmt.Sprintf("rivumi cannot tell where %q points (%v), so the tool may not use it.", name, err))
	}
	return v
}

func (p *PathPolicy) check(op Op, name, cwd string) (verdict.Verdict, error) {
	if name == "" {
		return verdict.Verdict{}, errors.New("empty path")
	}
	if strings.ContainsRune(name, 0) {
		return verdict.Verdict{}, errors.New("NUL in path")
	}
	wsIn, homeIn := p.Workspace, p.Home
	if p.Windows {
		var err error
		for _, s := range []*string{&name, &cwd, &wsIn, &homeIn} {
			if *s != "" {
				if *s, err = winpath.ToSlash(*s); err != nil {
					return verdict.Verdict{}, err
				}
			}
		}
	}
	if wsIn == "" || !isAbs(wsIn) {
		return verdict.Verdict{}, errors.New("no absolute workspace")
	}
	lex, err := absPath(name, cwd, homeIn)
	if err != nil {
		return verdict.Verdict{}, err
	}
	real, err := resolve(lex, p.Windows)
	if err != nil {
		return verdict.Verdict{}, err
	}
	ws := path.Clean(wsIn)
	wsReal, err := resolve(ws, p.Windows)
	if err != nil {
		return verdict.Verdict{}, err
	}
	home, homeReal := "", ""
	if homeIn != "" && isAbs(homeIn) {
		home = path.Clean(homeIn)
		if homeReal, err = resolve(home, p.Windows); err != nil {
			return verdict.Verdict{}, err
		}
	}
	a := p.decide(op, name, lex, ws, home)
	b := p.decide(op, name, real, wsReal, homeReal)
	if a.Decision > b.Decision {
		return a, nil
	}
	return b, nil
}

// absPath makes name absolute: "~" and "~/…" against home, relative
// against cwd. It does not clean the result: `..` is resolved physically.
func absPath(name, cwd, home string) (string, error) {
	switch {
	case name == "~" || strings.HasPrefix(name, "~/"):
		if home == "" {
			return "", errors.New("~ without a known home directory")
		}
		return home + name[1:], nil
	case isAbs(name):
		return name, nil
	case cwd == "" || !isAbs(cwd):
		return "", errors.New("relative path without an absolute cwd")
	}
	return cwd + "/" + name, nil
}

// Resolve returns the physical absolute path of the absolute path name:
// every symlink along it is followed, dangling ones included (a write
// through a dangling link creates its target), and `..` applies to the
// resolved directory, as the kernel does. Components that do not exist
// are kept as written. More than 40 links is an error (a loop).
func Resolve(name string) (string, error) { return resolve(name, false) }

// resolve is [Resolve]; with windows, name is in the slash form and the
// file system is asked in native spellings. Otherwise it is
// [realpath.Resolve], the resolver shell grading shares.
func resolve(name string, windows bool) (string, error) {
	if !isAbs(name) {
		return "", fmt.Errorf("%q is not absolute", name)
	}
	if !windows {
		return realpath.Resolve(name)
	}
	native := winpath.Native
	queue := strings.Split(name, "/")
	resolved := "/"
	links := 0
	missing := false // once a component is missing, the rest is lexical
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			resolved = path.Dir(resolved)
			continue
		}
		next := path.Join(resolved, c)
		if missing {
			resolved = next
			continue
		}
		fi, err := os.Lstat(native(next))
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
				return "", err
			}
			missing = true
			resolved = next
			continue
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			resolved = next
			continue
		}
		links++
		if links > 40 {
			return "", fmt.Errorf("too many levels of symbolic links in %q", name)
		}
		target, err := os.Readlink(native(next))
		if err != nil {
			return "", err
		}
		if windows {
			if target, err = winpath.ToSlash(target); err != nil {
				return "", err
			}
		}
		if isAbs(target) {
			resolved = "/"
		}
		queue = append(strings.Split(target, "/"), queue...)
	}
	return resolved, nil
}

func (p *PathPolicy) decide(op Op, name, abs, ws, home string) verdict.Verdict {
	opts := []parser.Option{parser.Workspace(ws), parser.Cwd("/")}
	if home != "" {
		opts = append(opts, parser.Home(home))
	}
	_, class := parser.ClassifyPath(abs, opts...)
	shown := name
	if abs != name {
		shown = name + " (" + abs + ")"
	}
	if op == OpWrite {
		switch {
		case p.matches(p.Protected, abs, ws, home):
			return pathVerdict(verdict.Deny, verdict.LayerDeny, RuleProtectedPattern, shown, "Writing a protected path",
				"The path matches a protected pattern of this installation; change it by hand, not from an agent.")
		case !strings.Contains("/"+abs+"/", "/../") && p.matches(p.Scratch, abs, ws, home):
			return pathVerdict(verdict.Allow, verdict.LayerAllow, RuleAgentScratch, shown, "Writing the agent's own scratch space",
				"The agent keeps its working files here (Gemini CLI's plans); they configure nothing.")
		case protectedClasses[class]:
			return pathVerdict(verdict.Deny, verdict.LayerDeny, RuleProtectedWrite, shown, "Writing a protected path",
				".git/, agent and rivumi configuration, shell start-up files, ~/.ssh, CI workflows and .envrc control what runs later, outside any review ("+class+"). Change them by hand, not from an agent.")
		case criticalClasses[class]:
			return pathVerdict(verdict.Deny, verdict.LayerFloor, RuleCriticalWrite, shown, "Writing a critical system path",
				"Credentials files, devices, / , the home directory itself and top-level system directories are never written by an agent ("+class+").")
		case class == parser.ClassInstructions:
			return pathVerdict(verdict.Ask, verdict.LayerAsk, RuleInstructionsWrite, shown, "Changing agent instructions",
				"CLAUDE.md, AGENTS.md and similar files are loaded as instructions by every later session; confirm the change.")
		case class == parser.ClassProjectCode:
			return pathVerdict(verdict.Ask, verdict.LayerAsk, RuleProjectCodeWrite, shown, "Writing code a program loads",
				"conftest.py, .mvn/jvm.config, rust-toolchain.toml and similar files are loaded and run by pytest, mvn, cargo … even for --version; writing one is writing code.")
		case class == parser.ClassWorkspace || class == parser.ClassNull:
			return pathVerdict(verdict.Allow, verdict.LayerAllow, RuleWriteWorkspace, shown, "Writing inside the workspace",
				"The file is inside the workspace and not protected.")
		}
		return pathVerdict(verdict.Ask, verdict.LayerAsk, RuleWriteOutside, shown, "Writing outside the workspace",
			"The tool writes outside the workspace ("+class+"); confirm the target.")
	}
	if secretClasses[class] || p.matches(p.Secrets, abs, ws, home) {
		return pathVerdict(verdict.Ask, verdict.LayerAsk, RuleReadSecret, shown, "Reading secrets",
			"The tool reads a secret (.env, keys, cloud credentials, ~/.ssh, /etc/shadow) that may leave the machine.")
	}
	return pathVerdict(verdict.Allow, verdict.LayerAllow, RuleRead, shown, "Reading a file", "Reading a file that holds no known secret.")
}

// matches reports whether abs matches one of the patterns.
func (p *PathPolicy) matches(patterns []string, abs, ws, home string) bool {
	for _, pat := range patterns {
		switch {
		case strings.HasPrefix(pat, "~/"):
			if home != "" && Match(home+pat[1:], abs) {
				return true
			}
		case strings.HasPrefix(pat, "/"):
			if Match(pat, abs) {
				return true
			}
		default:
			if rel, ok := strings.CutPrefix(abs, ws+"/"); ok && Match(pat, rel) {
				return true
			}
		}
	}
	return false
}

func pathVerdict(d verdict.Decision, layer verdict.Layer, rule, text, title, why string) verdict.Verdict {
	return verdict.Verdict{Decision: d, Policy: PolicyID, Reasons: []verdict.Reason{{
		Rule: rule, Layer: layer, Decision: d, Segment: -1, Title: title, Justification: why, Text: text,
	}}}
}
