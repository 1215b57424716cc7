package verdict

import (
	"encoding/json"
	"fmt"
)

// Decision is the outcome of grading a command. Decisions are ordered:
// Allow < Ask < Deny, and combining two decisions keeps the stricter one
// (see [Max]). The zero value is not a decision: a Verdict decoded from `{}`
// or a missing field has it, [Decision.Valid] is false for it, and every
// consumer treats it (and any other unknown value) as Deny ([Decision.OrDeny]).
type Decision int

const (
	// Allow: every segment is covered by an allow rule or a grant.
	Allow Decision = iota + 1
	// Ask: a human (or a configured approver) must confirm.
	Ask
	// Deny: the command must not run.
	Deny
)

// String returns "allow", "ask" or "deny".
func (d Decision) String() string {
	switch d {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	}
	if d == 0 {
		return "none"
	}
	return fmt.Sprintf("decision(%d)", int(d))
}

// Valid reports whether d is Allow, Ask or Deny.
func (d Decision) Valid() bool { return d >= Allow && d <= Deny }

// OrDeny returns d when it is a decision, else Deny: missing and unknown
// decisions fail closed.
func (d Decision) OrDeny() Decision {
	if !d.Valid() {
		return Deny
	}
	return d
}

// ParseDecision parses "allow", "ask" or "deny". Anything else is an error.
func ParseDecision(s string) (Decision, error) {
	switch s {
	case "allow":
		return Allow, nil
	case "ask":
		return Ask, nil
	case "deny":
		return Deny, nil
	}
	return Deny, fmt.Errorf("unknown decision %q (want allow, ask or deny)", s)
}

// Max returns the stricter of a and b.
func Max(a, b Decision) Decision {
	if a > b {
		return a
	}
	return b
}

// MarshalText encodes the decision as its name; the zero value is "none",
// which [Decision.UnmarshalText] (like any unknown name) rejects.
func (d Decision) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText decodes a decision name; unknown names are an error.
func (d *Decision) UnmarshalText(b []byte) error {
	v, err := ParseDecision(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// Layer names where a reason came from, in the order the policy applies them.
type Layer string

// The layers, strictest first.
const (
	LayerFloor    Layer = "floor"
	LayerDeny     Layer = "deny"
	LayerGrant    Layer = "grant"
	LayerAsk      Layer = "ask"
	LayerAllow    Layer = "allow"
	LayerFallback Layer = "fallback"
	LayerEngine   Layer = "engine" // fail-closed outcomes: errors, limits, parse errors
)

// Reason is one rule hit that contributed to a verdict.
type Reason struct {
	Rule          string   `json:"rule"`
	Layer         Layer    `json:"layer"`
	Decision      Decision `json:"decision"`
	Segment       int      `json:"segment"` // index into the parsed command's segments; -1 for the whole command
	Title         string   `json:"title,omitempty"`
	Justification string   `json:"justification,omitempty"`
	// Text is the segment's source text (or a summary), for humans.
	Text string `json:"text,omitempty"`
	// Suggest is a rule the user could paste to cover an uncovered segment (fallback only).
	Suggest string `json:"suggest,omitempty"`
	// Prefix is the segment's argv prefix (program and subcommand, after
	// unwrapping), the pattern an "always" grant would record.
	Prefix []string `json:"prefix,omitempty"`
	// Grantable reports whether a session grant may cancel this ask. Asks
	// raised by wrappers, assignments, redirects or the command's shape are
	// never grantable.
	Grantable bool `json:"grantable,omitempty"`
}

// Verdict is the engine's answer for one command. Decision is the maximum of
// the per-segment decisions; Reasons lists the hits of the deciding layer of
// each segment (all of them for explain). Policy is the hash of the compiled
// policy that produced it.
type Verdict struct {
	Decision Decision `json:"decision"`
	Reasons  []Reason `json:"reasons"`
	Policy   string   `json:"policy"`
	// Grants are the grants (session or standing) that cancelled an ask
	// of this command, for the audit; empty when none did.
	Grants []Grant `json:"grants,omitempty"`
}

// String is a one-line summary, for logs.
func (v Verdict) String() string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Grant is per-pattern session consent: on a segment whose argv starts with
// Prefix, the ask rules listed in Rules are cancelled. A grant never lowers a
// floor or deny hit, nor asks raised by wrappers, assignments, redirects or
// the command's shape.
type Grant struct {
	Prefix []string `json:"prefix"`
	Rules  []string `json:"rules"`
}
