package codescan

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/itchyny/gojq"
)

// JqResult describes a jq filter.
type JqResult struct {
	// Safe is set when the filter parsed and lies inside the subset: it
	// only transforms its inputs (see [Jq]).
	Safe bool
	// Env is set when the filter reads the environment ($ENV, env).
	Env bool
	// Modules lists the paths of import and include directives, in order
	// and without duplicates (jq reads PATH.json or PATH.jq from its search
	// path and from the directory of the importing program).
	Modules []string
	// Search lists the directories named by the search key of an import's
	// or include's metadata ({search: "~/.docker"}), when they are strings.
	Search []string
	// Shell is set when the filter quotes values for a shell (@sh, or
	// format/1, which may be format("sh")): its output is meant to be run.
	Shell bool
	// Reason says why the filter is not safe ("" when it is).
	Reason string
}

// MaxJqFilter is the longest filter [Jq] looks into; longer ones are not
// safe.
const MaxJqFilter = 64 << 10

// maxJqDepth bounds the nesting of the filter's syntax tree that [Jq]
// walks.
const maxJqDepth = 4096

// Jq parses filter as a jq program (the filter argument of jq, gojq or
// jaq) with gojq's parser and classifies it.
//
// The subset is pure data transformation over the inputs: paths, literals,
// operators, if/try/reduce/foreach/label, variables, functions defined in
// the filter, the builtins of jq 1.5 to 1.8 (and gojq) that only compute
// from their arguments (map, select, keys, test, splits, limit, input and
// inputs, which read the named input files, debug, stderr, halt_error, now
// …) and the formats @text @json @html @uri @urid @csv @tsv @sh @base64
// @base64d @base32 @base32d.
//
// Contract:
//   - Safe is false when the filter is empty of code that parses (a syntax
//     error, including forms jq accepts and gojq does not, such as `$ ENV`),
//     longer than [MaxJqFilter] or nested deeper than 4096, or contains a
//     carriage return or a backslash before a newline (jq 1.7.1 and gojq
//     continue a comment past such a newline, jq 1.6 and 1.7.0 do not, so
//     the versions disagree on what is code);
//   - Safe is false when the filter reads the environment ($ENV, env: Env is
//     set), names $__loc__ or any variable starting with $__, calls
//     input_filename, get_search_list, get_prog_origin, get_jq_origin or
//     modulemeta, has a module directive or an import or include (Modules
//     lists their paths), refers to a module's names (mod::f, $mod::x),
//     calls a name that is neither a builtin of the subset nor defined by
//     the filter in scope (an unknown name may be another implementation's
//     builtin), uses an unknown format, or defines or binds any of the
//     names above;
//   - a field or key named like a forbidden name (.env, {env: 1}, {env},
//     ."$ENV") and string literals ("env") are data, not calls;
//   - Shell is set by @sh and format/1 whether or not the filter is safe;
//   - Reason is "" exactly when Safe is true.
//
// Jq never panics and takes time roughly linear in len(filter).
func Jq(filter string) (res JqResult) {
	defer func() {
		if r := recover(); r != nil {
			res = JqResult{Reason: fmt.Sprint("jq parser failed: ", r)}
		}
	}()
	switch {
	case len(filter) > MaxJqFilter:
		return JqResult{Reason: "filter too long"}
	case strings.ContainsRune(filter, '\r'), strings.Contains(filter, "\\\n"):
		return JqResult{Reason: "a carriage return or a backslash before a newline (jq versions disagree on where comments end)"}
	case strings.ContainsRune(filter, 0):
		return JqResult{Reason: "a NUL byte"}
	}
	q, err := gojq.Parse(filter)
	if err != nil {
		return JqResult{Reason: "does not parse: " + err.Error()}
	}
	w := jqWalker{}
	w.query(q, 0)
	res = JqResult{Env: w.env, Modules: w.modules, Search: w.search, Shell: w.shell, Reason: w.reason}
	res.Safe = res.Reason == ""
	return res
}

// jqPure are the builtins of the subset, by name (any arity): jq 1.5 to
// 1.8 and gojq, less those that read the environment, the file system or
// the program's location. Like jqFormats and jqForbidden, it is built on
// first use, not at every start.
var jqPure = sync.OnceValue(func() map[string]bool {
	return setOf(`
	IN INDEX JOIN abs acos acosh add all any arrays ascii ascii_downcase ascii_upcase asin asinh atan
	atan2 atanh booleans bsearch builtins capture cbrt ceil combinations contains copysign cos cosh
	date dateadd datesub debug del delpaths drem empty endswith erf erfc error exp exp10 exp2 explode
	expm1 fabs fdim finites first flatten floor fma fmax fmin fmod format frexp from_entries fromdate
	fromdateiso8601 fromjson fromstream gamma getpath gmtime group_by gsub halt halt_error has
	have_decnum have_literal_numbers hypot implode in index indices infinite input input_line_number
	inputs inside isempty isfinite isinfinite isnan isnormal isvalid iterables j0 j1 jn join keys
	keys_unsorted last ldexp leaf_paths length lgamma lgamma_r limit localtime log log10 log1p log2
	logb ltrimstr ltrim map map_values match max max_by min min_by mktime modf nan nearbyint nextafter
	nexttoward normals not now nth nulls numbers objects path paths pick pow pow10 range recurse
	recurse_down remainder repeat reverse rindex rint round rtrimstr rtrim scalars scalb scalbln scan
	select setpath significand sin sinh skip sort sort_by split splits sqrt startswith stderr
	strflocaltime strftime strings strptime sub tan tanh test tgamma to_entries toarray toboolean
	todate todateiso8601 tojson tonumber tostream tostring transpose trim trimstr trunc
	truncate_stream type unique unique_by until utf8bytelength values walk while with_entries y0 y1 yn`)
})

// jqFormats are the formats of the subset.
var jqFormats = sync.OnceValue(func() map[string]bool {
	return setOf(`@text @json @html @uri @urid @csv @tsv @sh @base64 @base64d @base32 @base32d`)
})

// jqForbidden are names that reach outside the inputs, as calls,
// definitions or parameters.
var jqForbidden = sync.OnceValue(func() map[string]bool {
	return setOf(`env input_filename get_search_list get_prog_origin get_jq_origin modulemeta`)
})

func setOf(s string) map[string]bool {
	m := map[string]bool{}
	for _, f := range strings.Fields(s) {
		m[f] = true
	}
	return m
}

type jqWalker struct {
	scope   []jqFunc // the functions visible, innermost last
	env     bool
	shell   bool
	modules []string
	search  []string
	reason  string
}

func (w *jqWalker) fail(format string, args ...any) {
	if w.reason == "" {
		w.reason = fmt.Sprintf(format, args...)
	}
}

// name checks an identifier the filter defines, binds or calls (variables
// with their $).
func (w *jqWalker) name(n string) bool {
	switch {
	case n == "$ENV" || n == "env":
		w.env = true
		w.fail("reads the environment (%s)", n)
	case strings.HasPrefix(n, "$__"):
		w.fail("%s is outside the subset", n)
	case strings.Contains(n, "::"):
		w.fail("%s refers to a module", n)
	case jqForbidden()[n]:
		w.fail("%s is outside the subset", n)
	default:
		return true
	}
	return false
}

// jqFunc is a function by name and arity (jq's f/0 and f/1 are
// different functions).
type jqFunc struct {
	name  string
	arity int
}

func (w *jqWalker) visible(name string, arity int) bool {
	key := jqFunc{name, arity}
	for i := len(w.scope) - 1; i >= 0; i-- {
		if w.scope[i] == key {
			return true
		}
	}
	return false
}

func (w *jqWalker) query(q *gojq.Query, depth int) {
	if q == nil {
		return
	}
	if depth > maxJqDepth {
		w.fail("nested too deeply")
		return
	}
	if q.Meta != nil {
		w.fail("a module directive")
	}
	for _, im := range q.Imports {
		p := im.ImportPath
		if p == "" {
			p = im.IncludePath
		}
		if !slices.Contains(w.modules, p) {
			w.modules = append(w.modules, p)
		}
		if im.Meta != nil {
			for _, kv := range im.Meta.KeyVals {
				if kv.Key == "search" || kv.KeyString == "search" {
					w.searchDirs(kv.Val)
				}
			}
		}
		w.fail("imports %q (jq reads it from its search path)", p)
	}
	mark := len(w.scope)
	for _, fd := range q.FuncDefs {
		w.name(fd.Name)
		w.scope = append(w.scope, jqFunc{fd.Name, len(fd.Args)})
		inner := len(w.scope)
		for _, a := range fd.Args {
			w.name(a)
			// def f($a): both $a and a are bound in the body.
			w.scope = append(w.scope, jqFunc{strings.TrimPrefix(a, "$"), 0})
		}
		w.query(fd.Body, depth+1)
		w.scope = w.scope[:inner]
	}
	w.term(q.Term, depth+1)
	w.query(q.Left, depth+1)
	for _, p := range q.Patterns {
		w.pattern(p, depth+1)
	}
	w.query(q.Right, depth+1)
	w.scope = w.scope[:mark]
}

func (w *jqWalker) searchDirs(v *gojq.ConstTerm) {
	switch {
	case v == nil:
	case v.Str != "":
		w.search = append(w.search, v.Str)
	case v.Array != nil:
		for _, e := range v.Array.Elems {
			if e != nil && e.Str != "" {
				w.search = append(w.search, e.Str)
			}
		}
	}
}

func (w *jqWalker) pattern(p *gojq.Pattern, depth int) {
	if p == nil {
		return
	}
	if depth > maxJqDepth {
		w.fail("nested too deeply")
		return
	}
	if p.Name != "" {
		w.name(p.Name)
	}
	for _, e := range p.Array {
		w.pattern(e, depth+1)
	}
	for _, o := range p.Object {
		if strings.HasPrefix(o.Key, "$") {
			w.name(o.Key) // {$name}: binds $name
		}
		w.str(o.KeyString, depth+1)
		w.query(o.KeyQuery, depth+1)
		w.pattern(o.Val, depth+1)
	}
}

func (w *jqWalker) str(s *gojq.String, depth int) {
	if s == nil {
		return
	}
	for _, q := range s.Queries {
		w.query(q, depth+1)
	}
}

func (w *jqWalker) index(x *gojq.Index, depth int) {
	if x == nil {
		return
	}
	w.str(x.Str, depth+1)
	w.query(x.Start, depth+1)
	w.query(x.End, depth+1)
}

func (w *jqWalker) term(t *gojq.Term, depth int) {
	if t == nil {
		return
	}
	if depth > maxJqDepth {
		w.fail("nested too deeply")
		return
	}
	d := depth + 1
	switch t.Type {
	case gojq.TermTypeIdentity, gojq.TermTypeRecurse, gojq.TermTypeNull, gojq.TermTypeTrue,
		gojq.TermTypeFalse, gojq.TermTypeNumber, gojq.TermTypeBreak:
	case gojq.TermTypeIndex:
		w.index(t.Index, d)
	case gojq.TermTypeFunc:
		w.call(t.Func, d)
	case gojq.TermTypeObject:
		if t.Object != nil {
			for _, kv := range t.Object.KeyVals {
				if strings.HasPrefix(kv.Key, "$") {
					w.name(kv.Key) // {$x}: {x: $x}; {$__loc__}
				}
				w.str(kv.KeyString, d)
				w.query(kv.KeyQuery, d)
				w.query(kv.Val, d)
			}
		}
	case gojq.TermTypeArray:
		if t.Array != nil {
			w.query(t.Array.Query, d)
		}
	case gojq.TermTypeUnary:
		if t.Unary != nil {
			w.term(t.Unary.Term, d)
		}
	case gojq.TermTypeFormat:
		if !jqFormats()[t.Format] {
			w.fail("unknown format %s", t.Format)
		}
		if t.Format == "@sh" {
			w.shell = true
		}
		w.str(t.Str, d)
	case gojq.TermTypeString:
		w.str(t.Str, d)
	case gojq.TermTypeIf:
		if x := t.If; x != nil {
			w.query(x.Cond, d)
			w.query(x.Then, d)
			for _, e := range x.Elif {
				w.query(e.Cond, d)
				w.query(e.Then, d)
			}
			w.query(x.Else, d)
		}
	case gojq.TermTypeTry:
		if x := t.Try; x != nil {
			w.query(x.Body, d)
			w.query(x.Catch, d)
		}
	case gojq.TermTypeReduce:
		if x := t.Reduce; x != nil {
			w.query(x.Query, d)
			for _, p := range x.Patterns {
				w.pattern(p, d)
			}
			w.query(x.Start, d)
			w.query(x.Update, d)
		}
	case gojq.TermTypeForeach:
		if x := t.Foreach; x != nil {
			w.query(x.Query, d)
			for _, p := range x.Patterns {
				w.pattern(p, d)
			}
			w.query(x.Start, d)
			w.query(x.Update, d)
			w.query(x.Extract, d)
		}
	case gojq.TermTypeLabel:
		if x := t.Label; x != nil {
			w.name(x.Ident)
			w.query(x.Body, d)
		}
	case gojq.TermTypeQuery:
		w.query(t.Query, d)
	default:
		w.fail("unknown term type %d", t.Type)
	}
	for _, s := range t.SuffixList {
		if s != nil {
			w.index(s.Index, d)
		}
	}
}

func (w *jqWalker) call(f *gojq.Func, depth int) {
	if f == nil {
		return
	}
	if !w.name(f.Name) {
		return
	}
	if f.Name == "format" {
		w.shell = true // format("sh")
	}
	if !strings.HasPrefix(f.Name, "$") && !w.visible(f.Name, len(f.Args)) && !jqPure()[f.Name] {
		w.fail("%s/%d is not a builtin of the subset nor defined in the filter", f.Name, len(f.Args))
	}
	for _, a := range f.Args {
		w.query(a, depth+1)
	}
}
