package engine

import (
	"context"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
)

// The fast path: one query returns the hits of each layer
// (data.rivumi.main.hits, as raw terms) and Go applies the layering that
// policies/main.rego spells out for readers. TestGoLayeringMatchesRego
// proves both give the same decision and hits on every testcase.

// builtinHits is data.rivumi.main.hits without the user-pack unions, for
// engines that loaded no user pack (the unions cost as much as a layer).
const builtinHits = `{"floor": data.rivumi.rules.floor, "deny": data.rivumi.rules.deny, ` +
	`"ask": data.rivumi.rules.ask, "allow": data.rivumi.rules.allow}`

func prepareHits(ctx context.Context, c *ast.Compiler, store storage.Store, user bool) (rego.PreparedEvalQuery, error) {
	q := builtinHits
	if user {
		q = "data.rivumi.main.hits"
	}
	return rego.New(
		rego.Query(q),
		rego.Compiler(c),
		rego.Store(store),
		rego.StrictBuiltinErrors(true),
		rego.GenerateJSON(func(t *ast.Term, _ *rego.EvalContext) (any, error) { return t, nil }),
	).PrepareForEval(ctx)
}

// layerHits is one segment's rule hits by layer, before grants.
type layerHits struct {
	floor, deny, ask, allow []string // rule ids
}

// segmentHits evaluates the hits query for one input.
func (e *Engine) segmentHits(ctx context.Context, input ast.Value) (layerHits, error) {
	var h layerHits
	rs, err := e.c.hits.Eval(ctx, rego.EvalParsedInput(input))
	if err != nil {
		return h, err
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return h, fmt.Errorf("policy returned no hits")
	}
	t, ok := rs[0].Expressions[0].Value.(*ast.Term)
	if !ok {
		return h, fmt.Errorf("policy hits are not a term")
	}
	obj, ok := t.Value.(ast.Object)
	if !ok {
		return h, fmt.Errorf("policy hits are not an object")
	}
	for _, l := range []struct {
		key string
		dst *[]string
	}{{"floor", &h.floor}, {"deny", &h.deny}, {"ask", &h.ask}, {"allow", &h.allow}} {
		v := obj.Get(ast.StringTerm(l.key))
		if v == nil {
			return h, fmt.Errorf("policy hits lack %q", l.key)
		}
		set, ok := v.Value.(ast.Set)
		if !ok {
			return h, fmt.Errorf("policy hits %q are not a set", l.key)
		}
		var ferr error
		set.Foreach(func(x *ast.Term) {
			o, ok := x.Value.(ast.Object)
			if !ok {
				ferr = fmt.Errorf("a %s hit %v is not an object with an \"id\"", l.key, x)
				return
			}
			idt := o.Get(ast.StringTerm("id"))
			if idt == nil {
				ferr = fmt.Errorf("a %s hit %v has no \"id\"", l.key, x)
				return
			}
			id, ok := idt.Value.(ast.String)
			if !ok {
				ferr = fmt.Errorf("a %s hit %v has an \"id\" that is not a string", l.key, x)
				return
			}
			*l.dst = append(*l.dst, string(id))
		})
		if ferr != nil {
			return h, ferr
		}
	}
	return h, nil
}

// layered is one segment's outcome: its decision and the rule ids of each
// layer that count (asks left open, asks granted, allows).
type layered struct {
	decision             Decision
	floor, deny          []string
	openAsks, grantedAsk []string
	allow                []string
}

// layer applies main.rego's layering: floor and deny hits deny; an ask is
// cancelled only when a grant names it and its rule is grantable; open asks
// ask; allow needs an allow hit, or grants that cancelled every ask;
// otherwise ask (the fallback).
func (e *Engine) layer(h layerHits, granted map[string]bool) layered {
	out := layered{floor: h.floor, deny: h.deny, allow: h.allow}
	for _, id := range h.ask {
		if granted[id] && e.c.meta[id].Grantable() {
			out.grantedAsk = append(out.grantedAsk, id)
		} else {
			out.openAsks = append(out.openAsks, id)
		}
	}
	switch {
	case len(h.floor)+len(h.deny) > 0:
		out.decision = Deny
	case len(out.openAsks) > 0:
		out.decision = Ask
	case len(h.allow) > 0 || len(out.grantedAsk) > 0:
		out.decision = Allow
	default:
		out.decision = Ask
	}
	return out
}
