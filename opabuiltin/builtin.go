package opabuiltin

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/types"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/codescan"
	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/parser"
)

// ParseDecl declares rivumi.parse.
var ParseDecl = &rego.Function{
	Name:        "rivumi.parse",
	Description: "Parses a shell command (or an argv) into segments with facts, as the rivumi engine does.",
	Decl: types.NewFunction(
		types.Args(types.Named("x", types.A).Description("command string, or object with command|argv, cwd, workspace, home, shell")),
		types.Named("parsed", types.NewObject(nil, types.NewDynamicProperty(types.S, types.A))).Description("segments, shape, limit, error, floor"),
	),
	Memoize: true,
}

// RedactDecl declares rivumi.redact.
var RedactDecl = &rego.Function{
	Name:        "rivumi.redact",
	Description: "Replaces what looks like a secret (tokens, passwords, keys) in a string, as rivumi's audit log does.",
	Decl: types.NewFunction(
		types.Args(types.Named("s", types.S)),
		types.Named("redacted", types.S),
	),
}

// Register adds rivumi.parse and rivumi.redact to OPA's builtins for the
// whole process. Call it once, before OPA compiles anything.
func Register() {
	rego.RegisterBuiltin1(ParseDecl, parseBuiltin)
	rego.RegisterBuiltin1(RedactDecl, redactBuiltin)
}

// Functions returns rego options adding the builtins to one query only.
func Functions() []func(*rego.Rego) {
	return []func(*rego.Rego){rego.Function1(ParseDecl, parseBuiltin), rego.Function1(RedactDecl, redactBuiltin)}
}

func redactBuiltin(_ rego.BuiltinContext, s *ast.Term) (*ast.Term, error) {
	str, ok := s.Value.(ast.String)
	if !ok {
		return nil, errors.New("rivumi.redact: want a string")
	}
	return ast.StringTerm(audit.Redact(string(str))), nil
}

// request is rivumi.parse's argument.
type request struct {
	command *string
	argv    []string
	opts    []parser.Option
}

// parseBuiltin answers a request it cannot read with {"input_error":
// MSG} rather than an error: OPA drops a builtin's error (the rule is
// undefined), and the entrypoint must say why it denies (a relative cwd,
// a bad shell) as rivumi serve does.
func parseBuiltin(_ rego.BuiltinContext, x *ast.Term) (*ast.Term, error) {
	req, err := readRequest(x.Value)
	if err != nil {
		return inputError(err), nil
	}
	var cmd *parser.Command
	if req.command != nil {
		cmd, _ = parser.Parse(*req.command, req.opts...)
	} else {
		cmd, err = parser.FromArgv(req.argv, req.opts...)
		if err != nil {
			return inputError(err), nil
		}
	}
	return Parsed(cmd), nil
}

func inputError(err error) *ast.Term {
	return ast.ObjectTerm(ast.Item(ast.StringTerm("input_error"), ast.StringTerm(err.Error())))
}

// Parsed is rivumi.parse's result for a parsed command.
func Parsed(cmd *parser.Command) *ast.Term {
	segs := make([]*ast.Term, len(cmd.Segments))
	for i, s := range cmd.Segments {
		segs[i] = engine.SegmentTerm(s)
	}
	perr := ast.NullTerm()
	var floor []*ast.Term
	if pe := cmd.Shape.Error; pe != nil {
		perr = ast.ObjectTerm(
			ast.Item(ast.StringTerm("line"), ast.IntNumberTerm(pe.Line)),
			ast.Item(ast.StringTerm("col"), ast.IntNumberTerm(pe.Col)),
			ast.Item(ast.StringTerm("msg"), ast.StringTerm(pe.Msg)),
			ast.Item(ast.StringTerm("incomplete"), ast.BooleanTerm(pe.Incomplete)),
		)
		for _, id := range codescan.Floor(cmd.Text) {
			floor = append(floor, ast.StringTerm(id))
		}
	}
	return ast.ObjectTerm(
		ast.Item(ast.StringTerm("segments"), ast.ArrayTerm(segs...)),
		ast.Item(ast.StringTerm("shape"), engine.ShapeTerm(&cmd.Shape)),
		ast.Item(ast.StringTerm("limit"), ast.StringTerm(cmd.Shape.Limit)),
		ast.Item(ast.StringTerm("error"), perr),
		ast.Item(ast.StringTerm("floor"), ast.ArrayTerm(floor...)),
	)
}

func readRequest(v ast.Value) (*request, error) {
	if s, ok := v.(ast.String); ok {
		str := string(s)
		return &request{command: &str}, nil
	}
	obj, ok := v.(ast.Object)
	if !ok {
		return nil, fmt.Errorf("want a string or an object, got %s", ast.ValueName(v))
	}
	req := &request{}
	var err error
	obj.Foreach(func(k, val *ast.Term) {
		if err != nil {
			return
		}
		key, ok := k.Value.(ast.String)
		if !ok {
			err = errors.New("object keys must be strings")
			return
		}
		switch key {
		case "command":
			s, ok := val.Value.(ast.String)
			if !ok {
				err = errors.New(`"command" must be a string`)
				return
			}
			str := string(s)
			req.command = &str
		case "argv":
			arr, ok := val.Value.(*ast.Array)
			if !ok || arr.Len() == 0 {
				err = errors.New(`"argv" must be a non-empty array of strings`)
				return
			}
			arr.Foreach(func(t *ast.Term) {
				s, ok := t.Value.(ast.String)
				if !ok {
					err = errors.New(`"argv" must be a non-empty array of strings`)
					return
				}
				req.argv = append(req.argv, string(s))
			})
		case "cwd", "workspace", "home", "shell":
			s, ok := val.Value.(ast.String)
			if !ok {
				err = fmt.Errorf("%q must be a string", string(key))
				return
			}
			str := string(s)
			if str == "" {
				return
			}
			if key != "shell" && !filepath.IsAbs(str) {
				err = fmt.Errorf("%q must be an absolute path", string(key))
				return
			}
			switch key {
			case "cwd":
				req.opts = append(req.opts, parser.Cwd(str))
			case "workspace":
				req.opts = append(req.opts, parser.Workspace(str))
			case "home":
				req.opts = append(req.opts, parser.Home(str))
			case "shell":
				if str != "bash" && str != "sh" && str != "zsh" {
					err = fmt.Errorf(`"shell" must be bash, sh or zsh`)
					return
				}
				req.opts = append(req.opts, parser.Shell(str))
			}
		default:
			err = fmt.Errorf("unknown key %q", string(key))
		}
	})
	if err != nil {
		return nil, err
	}
	if (req.command == nil) == (req.argv == nil) {
		return nil, errors.New(`want "command" or "argv" (one of them)`)
	}
	return req, nil
}
