package engine

import (
	"sort"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/rivumi/rivumi/parser"
)

// Building the input as ast.Value by hand skips the JSON round trip OPA
// makes for Go values.

// str returns OPA's shared term for common strings (the empty one, one
// letter, …) and a new one otherwise; the keys below are built once.
func str(s string) *ast.Term { return ast.InternedTerm(s) }

func boolean(b bool) *ast.Term { return ast.InternedTerm(b) }

func number(n int) *ast.Term { return ast.InternedTerm(n) }

// Object keys of the input document, built once.
var (
	keyArgs           = ast.StringTerm("args")
	keyArgv           = ast.StringTerm("argv")
	keyAssigns        = ast.StringTerm("assigns")
	keyBackground     = ast.StringTerm("background")
	keyChangedShell   = ast.StringTerm("changed_shell")
	keyClass          = ast.StringTerm("class")
	keyCode           = ast.StringTerm("code")
	keyCount          = ast.StringTerm("count")
	keyCwd            = ast.StringTerm("cwd")
	keyCwdKnown       = ast.StringTerm("cwd_known")
	keyDepth          = ast.StringTerm("depth")
	keyDownstream     = ast.StringTerm("downstream")
	keyDynamic        = ast.StringTerm("dynamic")
	keyDynamicCommand = ast.StringTerm("dynamic_command")
	keyFd             = ast.StringTerm("fd")
	keyFlags          = ast.StringTerm("flags")
	keyFunctions      = ast.StringTerm("functions")
	keyGranted        = ast.StringTerm("granted")
	keyHeredocs       = ast.StringTerm("heredocs")
	keyIndex          = ast.StringTerm("index")
	keyInherited      = ast.StringTerm("inherited")
	keyKind           = ast.StringTerm("kind")
	keyLang           = ast.StringTerm("lang")
	keyName           = ast.StringTerm("name")
	keyOp             = ast.StringTerm("op")
	keyOperands       = ast.StringTerm("operands")
	keyOperators      = ast.StringTerm("operators")
	keyOptions        = ast.StringTerm("options")
	keyParent         = ast.StringTerm("parent")
	keyPath           = ast.StringTerm("path")
	keyPathKind       = ast.StringTerm("path_kind")
	keyProcSubsts     = ast.StringTerm("proc_substs")
	keyProgram        = ast.StringTerm("program")
	keyReadClasses    = ast.StringTerm("read_classes")
	keyReads          = ast.StringTerm("reads")
	keyRedirects      = ast.StringTerm("redirects")
	keySafe           = ast.StringTerm("safe")
	keySegment        = ast.StringTerm("segment")
	keyShape          = ast.StringTerm("shape")
	keyStdin          = ast.StringTerm("stdin")
	keySubcommand     = ast.StringTerm("subcommand")
	keySubstitutions  = ast.StringTerm("substitutions")
	keyTags           = ast.StringTerm("tags")
	keyTarget         = ast.StringTerm("target")
	keyText           = ast.StringTerm("text")
	keyUpstream       = ast.StringTerm("upstream")
	keyValue          = ast.StringTerm("value")
	keyWrappers       = ast.StringTerm("wrappers")
	keyWriteClasses   = ast.StringTerm("write_classes")
	keyWrites         = ast.StringTerm("writes")
)

func strs(ss []string) *ast.Term {
	ts := make([]*ast.Term, len(ss))
	for i, s := range ss {
		ts[i] = str(s)
	}
	return ast.ArrayTerm(ts...)
}

func strSet(ss []string) *ast.Term {
	ts := make([]*ast.Term, len(ss))
	for i, s := range ss {
		ts[i] = str(s)
	}
	return ast.SetTerm(ts...)
}

func bools(bs []bool) *ast.Term {
	ts := make([]*ast.Term, len(bs))
	for i, b := range bs {
		ts[i] = boolean(b)
	}
	return ast.ArrayTerm(ts...)
}

func operand(o parser.Operand) *ast.Term {
	return ast.ObjectTerm(
		ast.Item(keyText, str(o.Text)),
		ast.Item(keyPath, str(o.Path)),
		ast.Item(keyClass, str(o.Class)),
		ast.Item(keyDynamic, boolean(o.Dynamic)),
	)
}

func operands(os []parser.Operand) *ast.Term {
	ts := make([]*ast.Term, len(os))
	for i, o := range os {
		ts[i] = operand(o)
	}
	return ast.ArrayTerm(ts...)
}

// classSet is the set of the operands' classes, the classes of their link
// targets included: a write through a link is a write of both (a link to
// /dev/null adds nothing).
func classSet(os []parser.Operand) *ast.Term {
	ts := make([]*ast.Term, 0, len(os))
	for _, o := range os {
		ts = append(ts, str(o.Class))
		if o.LinkClass != "" && o.LinkClass != parser.ClassNull {
			ts = append(ts, str(o.LinkClass))
		}
	}
	return ast.SetTerm(ts...)
}

func segmentValue(s *parser.Segment) *ast.Term {
	wrappers := make([]*ast.Term, len(s.Wrappers))
	for i, w := range s.Wrappers {
		wrappers[i] = ast.ObjectTerm(ast.Item(keyName, str(w.Name)), ast.Item(keyArgs, strs(w.Args)))
	}
	redirects := make([]*ast.Term, len(s.Redirects))
	for i, r := range s.Redirects {
		redirects[i] = ast.ObjectTerm(
			ast.Item(keyOp, str(r.Op)),
			ast.Item(keyFd, str(r.Fd)),
			ast.Item(keyTarget, operand(r.Target)),
			ast.Item(keyInherited, boolean(r.Inherited)),
		)
	}
	assigns := make([]*ast.Term, len(s.Assigns))
	for i, a := range s.Assigns {
		assigns[i] = ast.ObjectTerm(ast.Item(keyName, str(a.Name)), ast.Item(keyValue, str(a.Value)), ast.Item(keyDynamic, boolean(a.Dynamic)))
	}
	code := make([]*ast.Term, len(s.Code))
	for i, c := range s.Code {
		code[i] = ast.ObjectTerm(
			ast.Item(keyLang, str(c.Lang)),
			ast.Item(keyText, str(c.Text)),
			ast.Item(keySafe, boolean(c.Safe)),
			ast.Item(keyDynamic, boolean(c.Dynamic)),
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
		ast.Item(keyIndex, number(s.Index)),
		ast.Item(keyParent, number(s.Parent)),
		ast.Item(keyDepth, number(s.Depth)),
		ast.Item(keyKind, str(s.Kind)),
		ast.Item(keyText, str(s.Text)),
		ast.Item(keyArgv, strs(s.Argv)),
		ast.Item(keyDynamic, bools(s.Dynamic)),
		ast.Item(keyProgram, str(s.Program)),
		ast.Item(keyPath, str(s.Path)),
		ast.Item(keyPathKind, str(s.PathKind)),
		ast.Item(keyWrappers, ast.ArrayTerm(wrappers...)),
		ast.Item(keySubcommand, str(s.Subcommand)),
		ast.Item(keyFlags, strSet(s.Flags)),
		ast.Item(keyOptions, ast.ObjectTerm(opts...)),
		ast.Item(keyOperands, operands(s.Operands)),
		ast.Item(keyRedirects, ast.ArrayTerm(redirects...)),
		ast.Item(keyAssigns, ast.ArrayTerm(assigns...)),
		ast.Item(keyCwd, str(s.Cwd)),
		ast.Item(keyCwdKnown, boolean(s.CwdKnown)),
		ast.Item(keyUpstream, strs(s.Upstream)),
		ast.Item(keyDownstream, strs(s.Downstream)),
		ast.Item(keyStdin, str(s.Stdin)),
		ast.Item(keyCode, ast.ArrayTerm(code...)),
		ast.Item(keyWrites, operands(s.Writes)),
		ast.Item(keyReads, operands(s.Reads)),
		ast.Item(keyWriteClasses, classSet(s.Writes)),
		ast.Item(keyReadClasses, classSet(s.Reads)),
		ast.Item(keyTags, strSet(s.Tags)),
	)
}

func shapeValue(sh *parser.Shape) *ast.Term {
	return ast.ObjectTerm(
		ast.Item(keyOperators, strs(sh.Operators)),
		ast.Item(keySubstitutions, number(sh.Substitutions)),
		ast.Item(keyProcSubsts, number(sh.ProcSubsts)),
		ast.Item(keyHeredocs, number(sh.Heredocs)),
		ast.Item(keyBackground, boolean(sh.Background)),
		ast.Item(keyDynamicCommand, boolean(sh.DynamicCommand)),
		ast.Item(keyChangedShell, boolean(sh.ChangedShell)),
		ast.Item(keyFunctions, strs(sh.Functions)),
	)
}

// segmentInput is the input document for one segment evaluation:
// {"segment": …, "index": i, "count": n, "shape": …, "granted": {ids}}.
func segmentInput(cmd *parser.Command, i int, shape *ast.Term, granted []string) ast.Value {
	return ast.NewObject(
		ast.Item(keySegment, segmentValue(cmd.Segments[i])),
		ast.Item(keyIndex, number(i)),
		ast.Item(keyCount, number(len(cmd.Segments))),
		ast.Item(keyShape, shape),
		ast.Item(keyGranted, strSet(granted)),
	)
}
