package engine

import (
	"fmt"
	"strings"
)

// Switch turns a rule off: its hits are dropped before the layering decides
// (policies/main.rego). Floor rules cannot be switched off.
type Switch struct {
	ID     string
	Reason string // why; required
	Where  string // where the switch was written (file:line), for messages
}

// Disable switches rules off. A switch without a reason, for an unknown
// rule id, or for a floor rule is a load error.
func Disable(sw ...Switch) Option {
	return func(c *config) { c.authoring.disabled = append(c.authoring.disabled, sw...) }
}

type standingGrant struct {
	Grant
	where string
}

// StandingGrants adds grants that hold for every evaluation, as if each
// evaluation carried them (see [Grants]): on a segment whose argv starts
// with a grant's prefix they cancel the grantable asks they name. where
// locates them for messages. A grant that names an unknown rule id is a
// load error; callers vet prefixes (no shells, interpreters, …) before.
func StandingGrants(where string, gs ...Grant) Option {
	return func(c *config) {
		for _, g := range gs {
			c.authoring.grants = append(c.authoring.grants, standingGrant{Grant: g, where: where})
		}
	}
}

// addSwitches checks the switches and standing grants against the rules'
// METADATA and records the switches under root (data.rivumi.disabled: id →
// reason). Standing grants are applied in Go with the session's grants.
func addSwitches(a *authoring, meta map[string]RuleMeta, root map[string]any) []string {
	var problems []string
	disabled := map[string]any{}
	for _, s := range a.disabled {
		where := s.Where
		if where == "" {
			where = "disable"
		}
		m, known := meta[s.ID]
		switch {
		case s.ID == "":
			problems = append(problems, fmt.Sprintf("%s: disable: no rule id", where))
		case strings.TrimSpace(s.Reason) == "":
			problems = append(problems, fmt.Sprintf("%s: disable %s: a reason is required", where, s.ID))
		case !known:
			problems = append(problems, fmt.Sprintf("%s: disable %s: no rule has this id", where, s.ID))
		case m.Layer == LayerFloor:
			problems = append(problems, fmt.Sprintf("%s: disable %s: floor rules cannot be switched off", where, s.ID))
		default:
			disabled[s.ID] = strings.TrimSpace(s.Reason)
		}
	}
	for _, g := range a.grants {
		where := g.where
		if where == "" {
			where = "grants"
		}
		if len(g.Prefix) == 0 || g.Prefix[0] == "" || len(g.Rules) == 0 {
			problems = append(problems, fmt.Sprintf("%s: grant %v: a grant needs a prefix and the ask rules it cancels", where, g.Prefix))
			continue
		}
		for _, id := range g.Rules {
			m, known := meta[id]
			switch {
			case !known:
				problems = append(problems, fmt.Sprintf("%s: grant %s: no rule has the id %s", where, strings.Join(g.Prefix, " "), id))
			case !m.Grantable():
				problems = append(problems, fmt.Sprintf("%s: grant %s: %s is not an ask a grant may cancel", where, strings.Join(g.Prefix, " "), id))
			}
		}
	}
	root["disabled"] = disabled
	return problems
}

// standingGrants returns the configuration's grants (checked by
// addSwitches).
func standingGrants(cfg *config) []Grant {
	out := make([]Grant, len(cfg.authoring.grants))
	for i, g := range cfg.authoring.grants {
		out[i] = g.Grant
	}
	return out
}

// withStanding returns the grants of one evaluation plus the standing ones.
func (e *Engine) withStanding(gs []Grant) []Grant {
	if len(e.c.standing) == 0 {
		return gs
	}
	return append(append(make([]Grant, 0, len(e.c.standing)+len(gs)), e.c.standing...), gs...)
}
