package engine

import (
	"sort"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/rivumi/rivumi/parser"
)

// Building the input as ast.Value by hand skips the JSON round trip OPA
// makes for Go values.

func str(s string) *ast.Term { return ast.StringTerm(s) }

func strs(ss []string) *ast.Term {
	ts := make([]*ast.Term, len(ss))
	for i, s := range ss {
		ts[i] = ast.StringTerm(s)
	}
	return ast.ArrayTerm(ts...)
}

func strSet(ss []string) *ast.Term {
	ts := make([]*ast.Term, len(ss))
	for i, s := range ss {
		ts[i] = ast.StringTerm(s)
	}
	return ast.SetTerm(ts...)
}

func bools(bs []bool) *ast.Term {
	ts := make([]*ast.Term, len(bs))
	for i, b := range bs {
		ts[i] = ast.BooleanTerm(b)
	}
	return ast.ArrayTerm(ts...)
}

func operand(o parser.Operand) *ast.Term {
	return ast.ObjectTerm(
		ast.Item(str("text"), str(o.Text)),
		ast.Item(str("path"), str(o.Path)),
		ast.Item(str("class"), str(o.Class)),
		ast.Item(str("dynamic"), ast.BooleanTerm(o.Dynamic)),
	)
}

func operands(os []parser.Operand) *ast.Term {
	ts := make([]*ast.Term, len(os))
	for i, o := range os {
		ts[i] = operand(o)
	}
	return ast.ArrayTerm(ts...)
}

// classSet is the set of the operands' classes.
func classSet(os []parser.Operand) *ast.Term {
	ts := make([]*ast.Term, len(os))
	for i, o := range os {
		ts[i] = ast.StringTerm(o.Class)
	}
	return ast.SetTerm(ts...)
}

func segmentValue(s *parser.Segment) *ast.Term {
	wrappers := make([]*ast.Term, len(s.Wrappers))
	for i, w := range s.Wrappers {
		wrappers[i] = ast.ObjectTerm(ast.Item(str("name"), str(w.Name)), ast.Item(str("args"), strs(w.Args)))
	}
	redirects := make([]*ast.Term, len(s.Redirects))
	for i, r := range s.Redirects {
		redirects[i] = ast.ObjectTerm(
			ast.Item(str("op"), str(r.Op)),
			ast.Item(str("fd"), str(r.Fd)),
			ast.Item(str("target"), operand(r.Target)),
			ast.Item(str("inherited"), ast.BooleanTerm(r.Inherited)),
		)
	}
	assigns := make([]*ast.Term, len(s.Assigns))
	for i, a := range s.Assigns {
		assigns[i] = ast.ObjectTerm(ast.Item(str("name"), str(a.Name)), ast.Item(str("value"), str(a.Value)), ast.Item(str("dynamic"), ast.BooleanTerm(a.Dynamic)))
	}
	code := make([]*ast.Term, len(s.Code))
	for i, c := range s.Code {
		code[i] = ast.ObjectTerm(
			ast.Item(str("lang"), str(c.Lang)),
			ast.Item(str("text"), str(c.Text)),
			ast.Item(str("safe"), ast.BooleanTerm(c.Safe)),
			ast.Item(str("dynamic"), ast.BooleanTerm(c.Dynamic)),
		)
	}
	keys := make([]string, 0, len(s.Options))
	for k := range s.Options {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	opts := make([][2]*ast.Term, len(keys))
	for i, k := range keys {
		opts[i] = ast.Item(str(k), strs(s.Options[k]))
	}
	return ast.ObjectTerm(
		ast.Item(str("index"), ast.IntNumberTerm(s.Index)),
		ast.Item(str("parent"), ast.IntNumberTerm(s.Parent)),
		ast.Item(str("depth"), ast.IntNumberTerm(s.Depth)),
		ast.Item(str("kind"), str(s.Kind)),
		ast.Item(str("text"), str(s.Text)),
		ast.Item(str("argv"), strs(s.Argv)),
		ast.Item(str("dynamic"), bools(s.Dynamic)),
		ast.Item(str("program"), str(s.Program)),
		ast.Item(str("path"), str(s.Path)),
		ast.Item(str("path_kind"), str(s.PathKind)),
		ast.Item(str("wrappers"), ast.ArrayTerm(wrappers...)),
		ast.Item(str("subcommand"), str(s.Subcommand)),
		ast.Item(str("flags"), strSet(s.Flags)),
		ast.Item(str("options"), ast.ObjectTerm(opts...)),
		ast.Item(str("operands"), operands(s.Operands)),
		ast.Item(str("redirects"), ast.ArrayTerm(redirects...)),
		ast.Item(str("assigns"), ast.ArrayTerm(assigns...)),
		ast.Item(str("cwd"), str(s.Cwd)),
		ast.Item(str("cwd_known"), ast.BooleanTerm(s.CwdKnown)),
		ast.Item(str("upstream"), strs(s.Upstream)),
		ast.Item(str("downstream"), strs(s.Downstream)),
		ast.Item(str("stdin"), str(s.Stdin)),
		ast.Item(str("code"), ast.ArrayTerm(code...)),
		ast.Item(str("writes"), operands(s.Writes)),
		ast.Item(str("reads"), operands(s.Reads)),
		ast.Item(str("write_classes"), classSet(s.Writes)),
		ast.Item(str("read_classes"), classSet(s.Reads)),
		ast.Item(str("tags"), strSet(s.Tags)),
	)
}

func shapeValue(sh *parser.Shape) *ast.Term {
	return ast.ObjectTerm(
		ast.Item(str("operators"), strs(sh.Operators)),
		ast.Item(str("substitutions"), ast.IntNumberTerm(sh.Substitutions)),
		ast.Item(str("proc_substs"), ast.IntNumberTerm(sh.ProcSubsts)),
		ast.Item(str("heredocs"), ast.IntNumberTerm(sh.Heredocs)),
		ast.Item(str("background"), ast.BooleanTerm(sh.Background)),
		ast.Item(str("dynamic_command"), ast.BooleanTerm(sh.DynamicCommand)),
		ast.Item(str("changed_shell"), ast.BooleanTerm(sh.ChangedShell)),
		ast.Item(str("functions"), strs(sh.Functions)),
	)
}

// segmentInput is the input document for one segment evaluation:
// {"segment": …, "index": i, "count": n, "shape": …, "granted": {ids}}.
func segmentInput(cmd *parser.Command, i int, shape *ast.Term, granted []string) ast.Value {
	return ast.NewObject(
		ast.Item(str("segment"), segmentValue(cmd.Segments[i])),
		ast.Item(str("index"), ast.IntNumberTerm(i)),
		ast.Item(str("count"), ast.IntNumberTerm(len(cmd.Segments))),
		ast.Item(str("shape"), shape),
		ast.Item(str("granted"), strSet(granted)),
	)
}
