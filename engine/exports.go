package engine

import (
	"context"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/format"

	"github.com/rivumi/rivumi/parser"
)

// This file exports what running the packs outside the engine needs (the
// OPA builtin rivumi.parse and `rivumi policy build`): the per-segment
// input documents exactly as the engine builds them, and the policy
// sources with their data.

// SegmentTerm returns the value of input.segment for s, as the engine
// passes it to data.rivumi.main.result.
func SegmentTerm(s *parser.Segment) *ast.Term { return segmentValue(s) }

// ShapeTerm returns the value of input.shape for a command's shape.
func ShapeTerm(sh *parser.Shape) *ast.Term { return shapeValue(sh) }

// GrantedRules returns the ask rule ids that grants cancel on seg (the
// value of input.granted): those of every grant whose prefix matches the
// segment's argv, with the program in place of argv[0] and no dynamic word.
func GrantedRules(grants []Grant, seg *parser.Segment) []string { return grantedRules(grants, seg) }

// Sources is a compiled policy's inputs, for loading them into another
// OPA: every Rego module by file name (built-in packs, user packs, and
// the module the engine generates to aggregate user packages below
// rivumi.user), the data document (tables and data.rivumi.meta.grantable),
// each rule's METADATA by id, and the policy hash [Engine.PolicyHash]
// reports for the same options.
type Sources struct {
	Modules map[string]string
	Data    map[string]any
	Rules   map[string]RuleMeta
	Hash    string
}

// LoadSources loads and compiles the embedded packs plus the user packs
// named by opts, like [New], and returns their sources. It fails like New
// when a policy does not compile.
func LoadSources(ctx context.Context, opts ...Option) (*Sources, error) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	files, _, err := load(&cfg)
	if err != nil {
		return nil, err
	}
	c, err := compile(ctx, &cfg)
	if err != nil {
		return nil, err
	}
	data, err := c.data()
	if err != nil {
		return nil, err
	}
	s := &Sources{Modules: map[string]string{}, Data: data, Rules: c.meta, Hash: c.hash}
	for _, f := range files {
		s.Modules[f.name] = f.text
	}
	rp, err := c.rego()
	if err != nil {
		return nil, err
	}
	for name, m := range rp.modules {
		if _, ok := s.Modules[name]; ok {
			continue
		}
		b, err := format.AstWithOpts(m, format.Opts{RegoVersion: ast.RegoV1})
		if err != nil {
			return nil, err
		}
		s.Modules[name] = string(b)
	}
	return s, nil
}
