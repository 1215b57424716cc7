package engine_test

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/parser"
	"github.com/rivumi/rivumi/programs"
	"github.com/rivumi/rivumi/rules"
)

// Security invariants (issue 12), as properties over the corpora.

// job is one evaluation: a command in a testcase's context.
type job struct {
	cmd  string
	opts []engine.EvalOption
}

func runJobs(e *engine.Engine, js []job) []engine.Verdict {
	out := make([]engine.Verdict, len(js))
	var wg sync.WaitGroup
	n := runtime.GOMAXPROCS(0)
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(js); i += n {
				out[i] = e.EvaluateText(context.Background(), js[i].cmd, js[i].opts...)
			}
		}()
	}
	wg.Wait()
	return out
}

// offerableGrants returns every grant the approval flow could offer for
// cmd, at once: for each segment and each argv prefix of it (the program by
// name first), one grant naming every ask rule id. Grants only cancel asks,
// so if this set lowers nothing, no subset of it does.
func offerableGrants(t *testing.T, tc rules.Testcase, askIDs []string) []engine.Grant {
	var popts []parser.Option
	for _, o := range []struct {
		v string
		f func(string) parser.Option
	}{{tc.Workspace, parser.Workspace}, {tc.Home, parser.Home}, {tc.Cwd, parser.Cwd}, {tc.Shell, parser.Shell}} {
		if o.v != "" {
			popts = append(popts, o.f(o.v))
		}
	}
	c, err := parser.Parse(tc.Command, popts...)
	if err != nil || c == nil {
		return nil
	}
	var gs []engine.Grant
	for _, s := range c.Segments {
		if s.Program == "" {
			continue
		}
		for k := 1; k <= len(s.Argv) && k <= 4; k++ {
			p := append([]string{s.Program}, s.Argv[1:k]...)
			gs = append(gs, engine.Grant{Prefix: p, Rules: askIDs})
		}
	}
	return gs
}

// TestPropertyNoGrantLowersFloorOrDeny: for every deny testcase, every
// grant the approval flow could offer (each ask rule id, grantable or not,
// × each argv prefix of each segment) leaves it deny.
func TestPropertyNoGrantLowersFloorOrDeny(t *testing.T) {
	e := defaultEngine(t)
	cases, err := rules.LoadTestcases("../testcases")
	if err != nil {
		t.Fatal(err)
	}
	var askIDs []string
	for id, m := range e.Rules() {
		if m.Layer == engine.LayerAsk {
			askIDs = append(askIDs, id)
		}
	}
	sort.Strings(askIDs)
	var js []job
	var from []rules.Testcase
	for _, tc := range cases {
		if tc.Decision != "deny" {
			continue
		}
		gs := offerableGrants(t, tc, askIDs)
		if len(gs) == 0 {
			continue
		}
		ctx := engine.TestcaseContext(tc)
		ctx.Grants = append(ctx.Grants, gs...)
		js = append(js, job{tc.Command, engine.ContextOptions(ctx)})
		from = append(from, tc)
	}
	vs := runJobs(e, js)
	var bad []string
	for i, v := range vs {
		if v.Decision != engine.Deny {
			bad = append(bad, fmt.Sprintf("%s: %q → %s with every offerable grant", from[i].Name(), from[i].Command, v.Decision))
		}
	}
	t.Logf("%d deny testcases × every offerable grant (%d ask rule ids), %d lowered", len(js), len(askIDs), len(bad))
	if len(js) < 300 {
		t.Errorf("only %d deny testcases checked", len(js))
	}
	if len(bad) > 0 {
		t.Errorf("a grant lowered a deny:\n%s", strings.Join(bad, "\n"))
	}
}

// runShell is, per language, code that hands the shell command %s (a
// double-quoted string literal) to a shell; "raw:" templates take the
// command as it is.
var runShell = map[string]string{
	"python": "import os; os.system(%s)", "node": `require("child_process").execSync(%s)`,
	"perl": "system(%s)", "ruby": "system(%s)", "php": "system(%s);", "lua": "os.execute(%s)",
	"pwsh": `Start-Process sh -ArgumentList '-c',%s`, "osascript": "do shell script %s",
	"tcl": "spawn sh -c %s", "gdb": "raw:shell %s",
}

// codeFlag spells p's first code option on the command line.
func codeFlag(p *programs.Program) string {
	canon := p.CodeOptions[0]
	for _, ent := range strings.Fields(p.Options) {
		names := strings.Split(strings.TrimRight(ent, "=?"), "|")
		if !containsStr(names, canon) {
			continue
		}
		for _, n := range names {
			if len(n) == 1 {
				return "-" + n
			}
		}
	}
	if p.SingleDashLong {
		return "-" + canon
	}
	return "--" + canon
}

func containsStr(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// inInterp returns the command line that runs shell command cmd through
// prog's code flag, in p's language.
func inInterp(p *programs.Program, prog, cmd string) string {
	tmpl, ok := runShell[p.Language]
	if !ok {
		tmpl = "system(%s)" // languages rivumi reads for shell commands in every string
	}
	var code string
	switch raw, isRaw := strings.CutPrefix(tmpl, "raw:"); {
	case isRaw:
		code = fmt.Sprintf(raw, cmd)
	case p.Language == "pwsh":
		code = fmt.Sprintf(tmpl, "'"+strings.ReplaceAll(cmd, "'", "''")+"'") // PowerShell quotes '' in '…'
	case p.Language == "perl" || p.Language == "php":
		// Single quotes: in double quotes perl and php interpolate their own
		// variables ("$HOME" is perl's $HOME, not the shell's).
		q := strings.ReplaceAll(strings.ReplaceAll(cmd, `\`, `\\`), "'", `\'`)
		code = fmt.Sprintf(tmpl, "'"+q+"'")
	default:
		code = fmt.Sprintf(tmpl, strconv.Quote(cmd))
	}
	return prog + " " + codeFlag(p) + " " + shq(code)
}

// TestPropertyInterpreterFlagsDenyFloorShapes: every floor shape of the
// corpora that denies through `python3 -c` (as os.system("…")) denies
// through every registered interpreter's code flag too, in its own
// language, by its first name and a versioned alias.
func TestPropertyInterpreterFlagsDenyFloorShapes(t *testing.T) {
	e := defaultEngine(t)
	cases, err := rules.LoadTestcases("../testcases/floor.yaml", "../testcases/evasion_floor.yaml")
	if err != nil {
		t.Fatal(err)
	}
	py := programs.Lookup("python3")
	var shapes []string
	var probe []job
	for _, tc := range cases {
		if tc.Decision != "deny" || strings.ContainsAny(tc.Command, "\n\\") || len(tc.Command) > 160 || tc.Shell != "" {
			continue
		}
		shapes = append(shapes, tc.Command)
		probe = append(probe, job{inInterp(py, "python3", tc.Command), invOpts})
	}
	vs := runJobs(e, probe)
	var floor []string
	for i, v := range vs {
		if v.Decision == engine.Deny {
			floor = append(floor, shapes[i])
		}
	}
	var js []job
	for _, p := range programs.All() {
		if p.Language == "" || len(p.CodeOptions) == 0 {
			continue
		}
		names := []string{p.Names[0]}
		if p.Versioned {
			names = append(names, p.Names[0]+"3.12")
		}
		for _, n := range names {
			for _, cmd := range floor {
				js = append(js, job{inInterp(p, n, cmd), invOpts})
			}
		}
	}
	vs = runJobs(e, js)
	var bad []string
	for i, v := range vs {
		if v.Decision != engine.Deny {
			bad = append(bad, fmt.Sprintf("%s → %s", js[i].cmd, v.Decision))
		}
	}
	t.Logf("%d floor shapes deny through python3 -c (of %d); %d interpreter checks, %d not deny", len(floor), len(shapes), len(js), len(bad))
	if len(floor) < 50 {
		t.Errorf("only %d floor shapes deny through python3 -c", len(floor))
	}
	if len(bad) > 0 {
		if len(bad) > 60 {
			bad = append(bad[:60], fmt.Sprintf("… and %d more", len(bad)-60))
		}
		t.Errorf("interpreter code flags that do not deny a floor shape:\n%s", strings.Join(bad, "\n"))
	}
}

// TestPropertyRunsAnythingNeverGranted: a grant for a program that runs
// whatever it is handed, whatever its name, case or version suffix, is never
// applied: `NAME x` with grants naming every ask rule gets the verdict it
// gets without them.
func TestPropertyRunsAnythingNeverGranted(t *testing.T) {
	e := defaultEngine(t)
	var all []string
	for id, m := range e.Rules() {
		if m.Layer == engine.LayerAsk {
			all = append(all, id)
		}
	}
	var js, plain []job
	for _, n := range programs.Names(func(p *programs.Program) bool { return p.RunsAnything }) {
		if n == "." || n == "exec" || n == "command" || n == "builtin" || n == "eval" || n == "source" {
			continue // shell builtins: no versions
		}
		for _, name := range []string{n, n + "3", n + "3.12", n + "-2.1"} {
			cmd := name + " x"
			g := []engine.Grant{{Prefix: []string{name}, Rules: all}, {Prefix: []string{name, "x"}, Rules: all}}
			js = append(js, job{cmd, append(append([]engine.EvalOption(nil), invOpts...), engine.Grants(g))})
			plain = append(plain, job{cmd, invOpts})
		}
	}
	vs, want := runJobs(e, js), runJobs(e, plain)
	var bad []string
	for i, v := range vs {
		if v.Decision != want[i].Decision {
			bad = append(bad, fmt.Sprintf("%s: %s with grants, %s without", js[i].cmd, v.Decision, want[i].Decision))
		}
		for _, r := range want[i].Reasons {
			if r.Grantable {
				bad = append(bad, fmt.Sprintf("%s: %s offered as grantable", js[i].cmd, r.Rule))
			}
		}
	}
	t.Logf("%d runs-anything spellings with every grant, %d changed", len(js), len(bad))
	if len(bad) > 0 {
		t.Errorf("a grant for a program that runs anything was applied:\n%s", strings.Join(bad, "\n"))
	}
}
