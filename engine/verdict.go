package engine

import "github.com/rivumi/rivumi/verdict"

// The verdict vocabulary lives in package verdict; these are its names
// for the engine's own code and for callers that have not moved yet.
type (
	Decision = verdict.Decision
	Layer    = verdict.Layer
	Reason   = verdict.Reason
	Verdict  = verdict.Verdict
	Grant    = verdict.Grant
)

// Decisions and layers ([verdict.Allow] …).
const (
	Allow = verdict.Allow
	Ask   = verdict.Ask
	Deny  = verdict.Deny

	LayerFloor    = verdict.LayerFloor
	LayerDeny     = verdict.LayerDeny
	LayerGrant    = verdict.LayerGrant
	LayerAsk      = verdict.LayerAsk
	LayerAllow    = verdict.LayerAllow
	LayerFallback = verdict.LayerFallback
	LayerEngine   = verdict.LayerEngine
)

// Max returns the stricter of a and b ([verdict.Max]).
func Max(a, b Decision) Decision { return verdict.Max(a, b) }

// ParseDecision parses "allow", "ask" or "deny" ([verdict.ParseDecision]).
func ParseDecision(s string) (Decision, error) { return verdict.ParseDecision(s) }
