package codescan

import (
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/itchyny/gojq"
)

var jqCases = []struct {
	filter string
	safe   bool
	env    bool
	shell  bool
	mods   []string
}{
	// Pure data transformation.
	{filter: ".", safe: true},
	{filter: "", safe: true}, // jq reads no program as "."
	{filter: ".dependencies | keys", safe: true},
	{filter: ".[] | select(.a > 1) | .name", safe: true},
	{filter: "to_entries | map(.key)", safe: true},
	{filter: "add", safe: true},
	{filter: ".a == $x", safe: true},
	{filter: "$ARGS.named", safe: true},
	{filter: ".env", safe: true},
	{filter: `."env"`, safe: true},
	{filter: `."$ENV"`, safe: true},
	{filter: `.["env"]`, safe: true},
	{filter: `"env"`, safe: true},
	{filter: `"$ENV and env and input_filename"`, safe: true},
	{filter: "{env: 1}", safe: true},
	{filter: "{env}", safe: true}, // {env: .env}
	{filter: `{"env": .a}`, safe: true},
	{filter: "{isSidechain, parentUuid, type}", safe: true},
	{filter: ".a.env.b", safe: true},
	{filter: "[limit(3; .[])]", safe: true},
	{filter: `[splits(", ")]`, safe: true},
	{filter: `ltrimstr("x")`, safe: true},
	{filter: "input, inputs", safe: true},
	{filter: "debug | stderr", safe: true},
	{filter: `halt_error("x"; 1)`, safe: true},
	{filter: "def f(g): g | g; f(.a)", safe: true},
	{filter: "def f($a): $a + a; f(1)", safe: true},
	{filter: "def fac: if . <= 1 then 1 else . * (. - 1 | fac) end; fac", safe: true},
	{filter: "reduce .[] as $x (0; . + $x)", safe: true},
	{filter: "foreach .[] as [$a, {b: $c}] (0; . + $a; [., $c])", safe: true},
	{filter: ". as [$a] ?// $a | $a", safe: true},
	{filter: "label $out | .[] | if . then ., break $out else empty end", safe: true},
	{filter: `try error("x") catch .`, safe: true},
	{filter: `"\(.a) and \(.b | tostring)"`, safe: true},
	{filter: `@csv "\(.)"`, safe: true},
	{filter: "@base64d", safe: true},
	{filter: "now | todate", safe: true},
	{filter: `.[] | test("a"; "x")`, safe: true},
	{filter: "paths(type == \"number\")", safe: true},
	{filter: "getpath([\"a\", \"b\"])", safe: true},
	{filter: ". # a comment with env in it", safe: true},
	{filter: "@sh", safe: true, shell: true},
	{filter: `@sh "rm \(.x)"`, safe: true, shell: true},
	{filter: `format("sh")`, safe: true, shell: true},
	{filter: "{a: 1} | .a as $x | {$x}", safe: true},

	// The environment.
	{filter: "$ENV", env: true},
	{filter: "$ENV.GITHUB_TOKEN", env: true},
	{filter: "$ ENV.GITHUB_TOKEN"}, // jq accepts the space; gojq does not: not safe either way
	{filter: "env", env: true},
	{filter: "env.HOME", env: true},
	{filter: "env | keys", env: true},
	{filter: ".[env.X]", env: true},
	{filter: `"\(env.TOKEN)"`, env: true},
	{filter: "{$ENV}", env: true},
	{filter: "{a: $ENV.X}", env: true},
	{filter: "$ENV | getpath([\"TOKEN\"])", env: true},
	{filter: "$ENV | paths", env: true},
	{filter: "[.[] | env]", env: true},
	{filter: "def f: env; 1", env: true}, // a body is checked even when unused
	{filter: "def env: 1; env", env: true},
	{filter: "def f(env): env; f(1)", env: true},
	{filter: ". as $ENV | $ENV", env: true},
	{filter: ". as {$ENV} | 1", env: true},
	{filter: `@sh "\(env.X)"`, env: true, shell: true},

	// Location, program arguments, files and modules.
	{filter: "$__loc__"},
	{filter: "{$__loc__}"},
	{filter: "$__prog_args"},
	{filter: "$__named"},
	{filter: "input_filename"},
	{filter: "get_search_list"},
	{filter: "get_prog_origin"},
	{filter: "get_jq_origin"},
	{filter: `"x" | modulemeta`},
	{filter: `import "../../root/.codex/auth" as $c; $c`, mods: []string{"../../root/.codex/auth"}},
	{filter: `import "config" as $k {search: "~/.docker"}; $k`, mods: []string{"config"}},
	{filter: `include "x"; .`, mods: []string{"x"}},
	{filter: `import "m" as m; m::f`, mods: []string{"m"}},
	{filter: `module {a: 1}; .`},
	{filter: "m::f"},
	{filter: "$m::x"},

	// Unknown names, formats and syntax.
	{filter: "nosuchfunction"},
	{filter: "_modify(.a; 1)"},
	{filter: "(def f: 1; 1) | f"}, // f is out of scope: maybe another builtin
	{filter: "def f: g; def g: 1; f"},
	{filter: "@nosuch"},
	{filter: ".["},
	{filter: "# \\\n$ENV.X"}, // jq 1.6 ends the comment at the newline; gojq does not
	{filter: "# x\r$ENV.X"},
	{filter: "# x\r\"\n$ENV.X\n#\""},
	{filter: ". | \x00"},
	{filter: strings.Repeat("[", 3000) + strings.Repeat("]", 3000)},
	{filter: "[" + strings.Repeat("1,", 2000) + "1]", safe: true}, // a long list is not deep nesting in jq, but is in the tree: within the limit
	{filter: strings.Repeat(" ", MaxJqFilter+1)},
}

func TestJq(t *testing.T) {
	for _, tc := range jqCases {
		got := Jq(tc.filter)
		if got.Safe != tc.safe || got.Env != tc.env || got.Shell != tc.shell || !slices.Equal(got.Modules, tc.mods) {
			t.Errorf("Jq(%q) = %+v, want safe=%v env=%v shell=%v modules=%q", tc.filter, got, tc.safe, tc.env, tc.shell, tc.mods)
		}
		if got.Safe != (got.Reason == "") {
			t.Errorf("Jq(%q): Safe=%v but Reason=%q", tc.filter, got.Safe, got.Reason)
		}
	}
}

func TestJqSearch(t *testing.T) {
	got := Jq(`import "a" as $a {search: "~/.docker"}; include "b" {search: ["/x", "y"]}; .`)
	if want := []string{"~/.docker", "/x", "y"}; !slices.Equal(got.Search, want) {
		t.Fatalf("Search = %q, want %q", got.Search, want)
	}
}

// jqNames collects, by reflection over gojq's syntax tree (independently of
// Jq's walker), every function and variable name the filter calls, defines
// or binds, and reports imports and module directives as names too.
func jqNames(v reflect.Value, out map[string]bool) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			jqNames(v.Elem(), out)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			jqNames(v.Index(i), out)
		}
	case reflect.Struct:
		switch x := v.Addr().Interface().(type) {
		case *gojq.Func:
			out[x.Name] = true
		case *gojq.FuncDef:
			out[x.Name] = true
			for _, a := range x.Args {
				out[a] = true
			}
		case *gojq.Pattern:
			out[x.Name] = true
		case *gojq.PatternObject:
			out[x.Key] = true
		case *gojq.ObjectKeyVal:
			if strings.HasPrefix(x.Key, "$") {
				out[x.Key] = true
			}
		case *gojq.Import:
			out["import"] = true
		case *gojq.Query:
			if x.Meta != nil {
				out["module"] = true
			}
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				jqNames(v.Field(i), out)
			}
		}
	}
}

// forbiddenJqName reports names no safe filter may contain.
func forbiddenJqName(n string) bool {
	return n == "$ENV" || n == "env" || n == "import" || n == "module" || strings.HasPrefix(n, "$__") ||
		strings.Contains(n, "::") || n == "input_filename" || n == "modulemeta" || strings.HasPrefix(n, "get_")
}

func checkJq(t *testing.T, filter string) {
	got := Jq(filter)
	if got.Safe != (got.Reason == "") {
		t.Fatalf("Jq(%q): Safe=%v Reason=%q", filter, got.Safe, got.Reason)
	}
	if !got.Safe {
		return
	}
	if got.Env || len(got.Modules) > 0 {
		t.Fatalf("Jq(%q) safe with %+v", filter, got)
	}
	if strings.ContainsAny(filter, "\r\x00") || strings.Contains(filter, "\\\n") {
		t.Fatalf("Jq(%q) safe with a CR, NUL or backslash-newline", filter)
	}
	q, err := gojq.Parse(filter)
	if err != nil {
		t.Fatalf("Jq(%q) safe but gojq: %v", filter, err)
	}
	names := map[string]bool{}
	jqNames(reflect.ValueOf(q), names)
	for n := range names {
		if forbiddenJqName(n) {
			t.Fatalf("Jq(%q) safe but names %s", filter, n)
		}
	}
}

func FuzzJq(f *testing.F) {
	for _, tc := range jqCases {
		f.Add(tc.filter)
	}
	f.Fuzz(checkJq)
}

// TestJqAgainstJq checks the subset against the real jq when it is
// installed: for every safe filter of the table, jq's own compiled program
// (its --debug-dump-disasm listing, run on no input) calls none of the
// builtins that reach outside the inputs and holds no copy of the
// environment (see jqOracle).
func TestJqAgainstJq(t *testing.T) {
	jq, err := exec.LookPath("jq")
	if err != nil {
		t.Skip("jq not installed")
	}
	for _, tc := range jqCases {
		if Jq(tc.filter).Safe && tc.filter != "" {
			jqOracle(t, jq, tc.filter)
		}
	}
}

// BenchmarkJq measures the per-call cost of classifying typical agent
// filters (parse plus walk).
func BenchmarkJq(b *testing.B) {
	for _, filter := range []string{
		".",
		".dependencies | keys",
		`.[] | select(.a > 1) | .name`,
		`[.items[] | {name, version: .v}] | sort_by(.name) | .[:5] | map("\(.name)\t\(.version)")`,
	} {
		b.Run(strings.ReplaceAll(filter, " ", ""), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !Jq(filter).Safe {
					b.Fatal("not safe")
				}
			}
		})
	}
}
