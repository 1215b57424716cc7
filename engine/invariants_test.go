package engine_test

import (
	"context"
	"fmt"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/rivumi/rivumi/adversarial"
	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/parser"
	"github.com/rivumi/rivumi/rules"
)

// Property tests over the corpora (testcases/*.yaml and a slice of the
// generated evasion cases): composing commands, wrapping them, repeating
// them and breaking them must never produce a more lenient verdict.

var invOpts = []engine.EvalOption{engine.Workspace("/work/proj"), engine.Home("/home/dev"), engine.Cwd("/work/proj")}

// invCorpus returns the bash commands of the corpora with their verdicts.
func invCorpus(t *testing.T) ([]string, []engine.Verdict) {
	t.Helper()
	cases, err := rules.LoadTestcases("../testcases")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var cmds []string
	add := func(c string) {
		if !seen[c] {
			seen[c] = true
			cmds = append(cmds, c)
		}
	}
	for _, tc := range cases {
		if (tc.Shell == "" || tc.Shell == "bash") && tc.Workspace == "/work/proj" && tc.Cwd == "" && tc.Home == "/home/dev" {
			add(tc.Command)
		}
	}
	gen := adversarial.Generate()
	for i := 0; i < len(gen); i += 50 {
		add(gen[i].Command)
	}
	return cmds, evalMany(defaultEngine(t), cmds)
}

// evalMany grades cmds on every CPU.
func evalMany(e *engine.Engine, cmds []string) []engine.Verdict {
	out := make([]engine.Verdict, len(cmds))
	var wg sync.WaitGroup
	n := runtime.GOMAXPROCS(0)
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(cmds); i += n {
				out[i] = e.EvaluateText(context.Background(), cmds[i], invOpts...)
			}
		}()
	}
	wg.Wait()
	return out
}

func parses(cmd string) bool {
	c, err := parser.Parse(cmd, parser.Workspace("/work/proj"), parser.Home("/home/dev"))
	return err == nil && c.Shape.Limit == ""
}

// valuesUnsettled reports that y's words are known only by static
// evaluation and that after x they are not: x changed the shell (a
// function call, enable, …) before y's segments run.
func valuesUnsettled(x, y string) bool {
	opts := []parser.Option{parser.Workspace("/work/proj"), parser.Home("/home/dev")}
	alone, err := parser.Parse(y, opts...)
	if err != nil || !hasTag(alone, parser.TagDerived) {
		return false
	}
	both, err := parser.Parse(x+"\n"+y, opts...)
	// A program x names dynamically ("$(printf rm)") may be a function or
	// declare, which can set y's variables, just as a changed shell can.
	return err == nil && !hasTag(both, parser.TagDerived) &&
		(hasTag(both, parser.TagChangedShell) || hasTag(both, parser.TagDynamicProgram))
}

// cwdUnsettled reports that x leaves the shell in a directory that cannot
// be known (cd "$d") where y alone runs in a known one: y's relative names
// (a link it makes, a file it writes and runs) may already exist there as
// something else, and the parser does not follow them into an unknown
// directory. y is never allowed there (its paths are unknown), but its
// floor shape is no longer certain.
func cwdUnsettled(x, y string) bool {
	opts := []parser.Option{parser.Workspace("/work/proj"), parser.Home("/home/dev")}
	alone, err := parser.Parse(y, opts...)
	if err != nil {
		return false
	}
	for _, s := range alone.Segments {
		if !s.CwdKnown {
			return false
		}
	}
	first, err := parser.Parse(x, opts...)
	if err != nil {
		return false
	}
	both, err := parser.Parse(x+"\n"+y, opts...)
	if err != nil || len(both.Segments) <= len(first.Segments) {
		return false
	}
	for _, s := range both.Segments[len(first.Segments):] {
		if !s.CwdKnown {
			return true
		}
	}
	return false
}

func hasTag(c *parser.Command, tag string) bool {
	for _, s := range c.Segments {
		if s.HasTag(tag) {
			return true
		}
	}
	return false
}

// derived is a command built from corpus command base (and maybe other),
// which must not be graded more leniently than floor.
type derived struct {
	text  string
	floor engine.Decision
	from  string
	how   string
}

func checkDerived(t *testing.T, name string, ds []derived) {
	t.Helper()
	cmds := make([]string, len(ds))
	for i, d := range ds {
		cmds[i] = d.text
	}
	vs := evalMany(defaultEngine(t), cmds)
	var bad []string
	for i, d := range ds {
		if vs[i].Decision < d.floor {
			bad = append(bad, fmt.Sprintf("%s: %q → %s, but %q alone is %s", d.how, d.text, vs[i].Decision, d.from, d.floor))
		}
	}
	t.Logf("%s: %d checks, %d violations", name, len(ds), len(bad))
	if len(bad) > 0 {
		if len(bad) > 40 {
			bad = append(bad[:40], fmt.Sprintf("… and %d more", len(bad)-40))
		}
		t.Errorf("%s lowered the decision:\n%s", name, strings.Join(bad, "\n"))
	}
}

// TestInvariantMonotonic: adding a segment never lowers a decision. X runs
// after `A;`, `A &&`, `A ||`, `A |`, `A &`, in the background, in a
// subshell and in a substitution; two corpus commands in sequence are at
// least as strict as the stricter of them.
func TestInvariantMonotonic(t *testing.T) {
	cmds, vs := invCorpus(t)
	var ds []derived
	for i, x := range cmds {
		if !parses(x) {
			continue
		}
		d := vs[i].Decision
		for _, a := range []string{"true", "ls -la"} {
			// `;`, a newline and `&` bind loosest: X keeps its structure.
			// Behind &&, || and | it goes in braces, or the operators'
			// precedence would regroup it (a | cd x && y runs cd in the
			// pipeline's subshell, then y where it was).
			for _, op := range []string{"; ", "\n", " & "} {
				ds = append(ds, derived{a + op + x, d, x, "after " + strings.TrimSpace(op)})
			}
			for _, op := range []string{" && ", " || ", " | "} {
				ds = append(ds, derived{a + op + "{ " + x + "\n}", d, x, "after " + strings.TrimSpace(op)})
			}
		}
		ds = append(ds,
			derived{"{ " + x + "\n} &", d, x, "background"},
			derived{"( " + x + "\n)", d, x, "subshell"},
			derived{"echo $( " + x + "\n)", d, x, "substitution"},
			derived{"$( " + x + "\n)", d, x, "substitution as command"},
		)
		// Pairs of corpus commands, in sequence: at least the stricter.
		j := (i*7 + 3) % len(cmds)
		y := cmds[j]
		if parses(y) {
			floor := engine.Max(d, vs[j].Decision)
			if vs[j].Decision == engine.Deny && d != engine.Deny && (valuesUnsettled(x, y) || cwdUnsettled(x, y)) {
				// y denies by values it sets itself (x=rm; $x -rf /), and x
				// may change what those words mean (a function call can set
				// IFS or type a variable, enable can swap a builtin): y's
				// floor shape is no longer certain, and it is never allowed.
				floor = engine.Ask
			}
			ds = append(ds, derived{x + "\n" + y, floor, x + " / " + y, "sequence"})
		}
	}
	checkDerived(t, "monotonic", ds)
}

// simpleStart matches commands a prefix wrapper can take: they start with
// a plain word (see notPrefixable for the words excluded).
var simpleStart = regexp.MustCompile(`^[A-Za-z0-9_./][A-Za-z0-9_./+-]*( |$)`)

// notPrefixable are first words that mean something else as a wrapper's
// operand: reserved words, and builtins that change the shell or have no
// program of that name (sudo export x=1 runs a program called export).
var notPrefixable = map[string]bool{
	"if": true, "then": true, "else": true, "elif": true, "fi": true, "while": true, "until": true,
	"for": true, "do": true, "done": true, "case": true, "esac": true, "select": true, "function": true,
	"time": true, "coproc": true, "in": true,
	"export": true, "declare": true, "typeset": true, "local": true, "readonly": true, "cd": true,
	"pushd": true, "popd": true, "alias": true, "unalias": true, "trap": true, "eval": true,
	"source": true, ".": true, "set": true, "shopt": true, "unset": true, "read": true, "exec": true,
	"let": true, "hash": true, "enable": true, "builtin": true, "command": true, "type": true,
	"history": true, "fc": true, "jobs": true, "wait": true, "shift": true, "return": true,
	"break": true, "continue": true, "exit": true, "ulimit": true, "umask": true, "getopts": true,
	"mapfile": true, "readarray": true, "bind": true, "complete": true, "compgen": true, "dirs": true,
	"disown": true, "suspend": true, "logout": true, "times": true,
	// printf -v sets a variable only as the shell's builtin: sudo printf -v
	// c %s rm leaves c unset for what follows.
	"printf": true,
}

// TestInvariantWrappers: running X under a wrapper never lowers its
// decision: sudo, env, nohup, timeout, xargs (prefix wrappers, for X that
// starts with a plain program word) and bash -c, eval (any X, quoted).
func TestInvariantWrappers(t *testing.T) {
	cmds, vs := invCorpus(t)
	var ds []derived
	for i, x := range cmds {
		if !parses(x) {
			continue
		}
		d := vs[i].Decision
		q := adversarial.SQ(x)
		ds = append(ds,
			derived{"bash -c " + q, d, x, "bash -c"},
			derived{"eval " + q, d, x, "eval"},
			derived{"sh -c " + q, d, x, "sh -c"},
		)
		first := strings.Fields(x)
		if strings.Contains(x, "\n") || !simpleStart.MatchString(x) || len(first) == 0 || notPrefixable[first[0]] {
			continue
		}
		for _, w := range []string{"sudo", "env", "nohup", "timeout 5", "xargs", "nice", "command"} {
			ds = append(ds, derived{w + " " + x, d, x, w})
		}
	}
	checkDerived(t, "wrappers", ds)
}

// TestInvariantDeterministic: the same input gives the same verdict and
// reasons, sequentially and concurrently.
func TestInvariantDeterministic(t *testing.T) {
	cmds, vs := invCorpus(t)
	e := defaultEngine(t)
	again := evalMany(e, cmds)
	n := 0
	for i, c := range cmds {
		one := e.EvaluateText(context.Background(), c, invOpts...)
		for _, v := range []engine.Verdict{again[i], one} {
			n++
			if !reflect.DeepEqual(v, vs[i]) {
				t.Errorf("%q: verdicts differ:\n%v\n%v", c, vs[i], v)
			}
		}
	}
	t.Logf("deterministic: %d comparisons", n)
}

// TestInvariantBrokenNeverAllowed: text that does not parse or exceeds a
// limit is never allowed. The corpus commands are cut short at several
// places, and made to exceed each parser limit.
func TestInvariantBrokenNeverAllowed(t *testing.T) {
	cmds, _ := invCorpus(t)
	var texts []string
	for _, c := range cmds {
		for _, k := range []int{len(c) / 3, len(c) / 2, len(c) - 1} {
			if k > 0 && k < len(c) {
				texts = append(texts, c[:k])
			}
		}
		texts = append(texts, c+" '", c+" \"", c+" $(", c+" `", "( "+c, "{ "+c, "if "+c, c+" |", c+" &&")
	}
	texts = append(texts,
		"echo 'unterminated", "ls (", "((", "if true; then ls", "cat <<EOF\nx", "$(", "`ls", "ls )", "case x in",
		strings.Repeat("(", parser.DefaultMaxDepth+1)+"ls"+strings.Repeat(")", parser.DefaultMaxDepth+1),
		"ls "+strings.Repeat("a", parser.DefaultMaxBytes),
		strings.Repeat("ls;", parser.DefaultMaxSegments+1),
		strings.Repeat("bash -c '", 1)+strings.Repeat("eval ", 50)+"ls'",
	)
	e := defaultEngine(t)
	broken := 0
	var bad []string
	vs := evalMany(e, texts)
	for i, txt := range texts {
		c, err := parser.Parse(txt, parser.Workspace("/work/proj"), parser.Home("/home/dev"))
		if err == nil && c.Shape.Limit == "" {
			continue
		}
		broken++
		if vs[i].Decision == engine.Allow {
			bad = append(bad, fmt.Sprintf("%q (error %v, limit %q) is allowed", abbrev(txt), err, c.Shape.Limit))
		}
		if len(vs[i].Reasons) == 0 {
			bad = append(bad, fmt.Sprintf("%q: %s without a reason", abbrev(txt), vs[i].Decision))
		}
	}
	t.Logf("broken input: %d texts, %d do not parse or hit a limit, %d allowed", len(texts), broken, len(bad))
	if len(bad) > 0 {
		t.Errorf("broken input allowed:\n%s", strings.Join(bad, "\n"))
	}
}

func abbrev(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}
