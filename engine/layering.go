package engine

import (
	"context"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// The fast path: two queries return the hits of each layer (the gate:
// floor, deny and ask; then allow, only when the gate leaves the segment
// open) and Go applies the layering that policies/main.rego spells out for
// readers. TestGoLayeringMatchesRego proves both give the same decision and
// hits on every testcase.
//
// The queries run straight through topdown with one store transaction per
// verdict: the rego package's per-call set-up (options, transaction,
// metrics, result conversion) cost ~2.3 µs and 12 allocations per segment.

// Query variable names the hits are bound to.
const (
	varFloor = "rivumi_floor"
	varDeny  = "rivumi_deny"
	varAsk   = "rivumi_ask"
	varAllow = "rivumi_allow"
)

// hitQueries holds the compiled gate and allow queries.
type hitQueries struct {
	compiler    *ast.Compiler
	store       storage.Store
	gate, allow ast.Body
	// alwaysAllow makes every segment evaluate the allow layer, even when a
	// stricter layer decided: when the engine loaded user packs, YAML rules
	// or switched rules off, so that a team's rule that fails at run time
	// always denies (naming the error) instead of going unnoticed on the
	// commands its layer does not decide. The built-in allow rules are
	// covered by the testcases.
	alwaysAllow bool
}

// prepareHits compiles the queries. Without user packs or switched-off
// rules (user false) they read the built-in layer sets directly (main.rego's
// unions and switch filter cost as much as a layer); see alwaysAllow for the
// other flag.
func prepareHits(c *ast.Compiler, store storage.Store, user, alwaysAllow bool) (*hitQueries, error) {
	src := map[string]string{
		varFloor: "data.rivumi.rules.floor", varDeny: "data.rivumi.rules.deny",
		varAsk: "data.rivumi.rules.ask", varAllow: "data.rivumi.rules.allow",
	}
	if user {
		src = map[string]string{
			varFloor: "data.rivumi.main.floor_hits", varDeny: "data.rivumi.main.deny_hits",
			varAsk: "data.rivumi.main.ask_hits", varAllow: "data.rivumi.main.allow_hits",
		}
	}
	q := &hitQueries{compiler: c, store: store, alwaysAllow: alwaysAllow}
	var err error
	if q.gate, err = compileQuery(c, fmt.Sprintf("%s = %s; %s = %s; %s = %s", varFloor, src[varFloor], varDeny, src[varDeny], varAsk, src[varAsk])); err != nil {
		return nil, err
	}
	if q.allow, err = compileQuery(c, fmt.Sprintf("%s = %s", varAllow, src[varAllow])); err != nil {
		return nil, err
	}
	return q, nil
}

func compileQuery(c *ast.Compiler, text string) (ast.Body, error) {
	body, err := ast.ParseBodyWithOpts(text, ast.ParserOptions{RegoVersion: ast.RegoV1})
	if err != nil {
		return nil, err
	}
	return c.QueryCompiler().Compile(body)
}

// evalRun is one verdict's evaluation: a read transaction on the store and,
// when the caller's context can end, a cancel that fires with it and stops
// the evaluation in flight.
type evalRun struct {
	q      *hitQueries
	ctx    context.Context
	txn    storage.Transaction
	cancel topdown.Cancel // nil when ctx cannot end
	stop   func() bool    // unregisters the cancel from ctx
}

func (q *hitQueries) start(ctx context.Context) (*evalRun, error) {
	txn, err := q.store.NewTransaction(ctx, storage.TransactionParams{})
	if err != nil {
		return nil, err
	}
	r := &evalRun{q: q, ctx: ctx, txn: txn}
	if ctx.Done() != nil {
		r.cancel = topdown.NewCancel()
		r.stop = context.AfterFunc(ctx, r.cancel.Cancel)
	}
	return r, nil
}

func (r *evalRun) close() {
	r.q.store.Abort(r.ctx, r.txn)
	if r.stop != nil {
		r.stop()
	}
}

// eval runs body on input and returns its one result's bindings.
func (r *evalRun) eval(body ast.Body, input *ast.Term) (topdown.QueryResult, error) {
	tq := topdown.NewQuery(body).
		WithCompiler(r.q.compiler).
		WithStore(r.q.store).
		WithTransaction(r.txn).
		WithInput(input).
		WithStrictBuiltinErrors(true)
	if r.cancel != nil {
		tq = tq.WithCancel(r.cancel)
	}
	var out topdown.QueryResult
	n := 0
	err := tq.Iter(r.ctx, func(qr topdown.QueryResult) error {
		out = qr
		n++
		return nil
	})
	if err != nil {
		return nil, err
	}
	if n != 1 {
		return nil, fmt.Errorf("policy returned %d results for one segment", n)
	}
	return out, nil
}

// layerHits is one segment's rule hits by layer, before grants. allowKnown
// says whether the allow layer was evaluated.
type layerHits struct {
	floor, deny, ask, allow []string // rule ids
	allowKnown              bool
}

// gateHits evaluates the floor, deny and ask layers for one input.
func (r *evalRun) gateHits(input *ast.Term) (layerHits, error) {
	var h layerHits
	qr, err := r.eval(r.q.gate, input)
	if err != nil {
		return h, err
	}
	for _, l := range []struct {
		v   string
		dst *[]string
	}{{varFloor, &h.floor}, {varDeny, &h.deny}, {varAsk, &h.ask}} {
		if *l.dst, err = hitIDs(qr, l.v); err != nil {
			return h, err
		}
	}
	return h, nil
}

// allowHits evaluates the allow layer for one input.
func (r *evalRun) allowHits(input *ast.Term) ([]string, error) {
	qr, err := r.eval(r.q.allow, input)
	if err != nil {
		return nil, err
	}
	return hitIDs(qr, varAllow)
}

// hitIDs reads the rule ids of the hit set bound to v.
func hitIDs(qr topdown.QueryResult, v string) ([]string, error) {
	layer := v[len("rivumi_"):]
	t := qr[ast.Var(v)]
	if t == nil {
		return nil, fmt.Errorf("policy hits lack %q", layer)
	}
	set, ok := t.Value.(ast.Set)
	if !ok {
		return nil, fmt.Errorf("policy hits %q are not a set", layer)
	}
	var ids []string
	var ferr error
	set.Foreach(func(x *ast.Term) {
		if ferr != nil {
			return
		}
		o, ok := x.Value.(ast.Object)
		if !ok {
			ferr = fmt.Errorf("a %s hit %v is not an object with an \"id\"", layer, x)
			return
		}
		idt := o.Get(ast.InternedTerm("id"))
		if idt == nil {
			ferr = fmt.Errorf("a %s hit %v has no \"id\"", layer, x)
			return
		}
		id, ok := idt.Value.(ast.String)
		if !ok {
			ferr = fmt.Errorf("a %s hit %v has an \"id\" that is not a string", layer, x)
			return
		}
		ids = append(ids, string(id))
	})
	return ids, ferr
}

// layered is one segment's outcome: its decision and the rule ids of each
// layer that count (asks left open, asks granted, allows).
type layered struct {
	decision             Decision
	floor, deny          []string
	openAsks, grantedAsk []string
	allow                []string
}

// needsAllow reports whether the allow layer can change the segment's
// decision: only when no floor or deny rule hit and every ask is cancelled
// by a grant.
func (e *Engine) needsAllow(h layerHits, granted map[string]bool) bool {
	if len(h.floor)+len(h.deny) > 0 {
		return false
	}
	for _, id := range h.ask {
		if !granted[id] || !e.c.meta[id].Grantable() {
			return false
		}
	}
	return true
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
