package server

import (
	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/verdict"
)

// Request asks for one verdict ([verdict.Request]).
type Request = verdict.Request

// Text returns a request for grading command text ([verdict.Text]).
func Text(command string) Request { return verdict.Text(command) }

// Response is one verdict, with the request's command or argv echoed and,
// for requests that could not be graded, the reason in Error.
type Response struct {
	Command string   `json:"command,omitempty"`
	Argv    []string `json:"argv,omitempty"`
	engine.Verdict
	Error string `json:"error,omitempty"`

	unrecorded bool // the audit entry could not be written (HTTP 503)
}

// RuleBadInput is the rule of verdicts for requests that cannot be graded.
const RuleBadInput = "engine.bad-input"

// RuleAuditFailed is the rule of the deny given instead of a verdict whose
// audit entry could not be written.
const RuleAuditFailed = "engine.audit-failed"

// evalOptions returns the engine options for r.
func evalOptions(r *Request) []engine.EvalOption {
	return engine.ContextOptions(r.Context())
}

// badInput is the deny response for a request that cannot be graded.
func badInput(policy string, r *Request, err error) Response {
	msg := err.Error()
	resp := Response{Error: msg, Verdict: engine.Verdict{Decision: engine.Deny, Policy: policy, Reasons: []engine.Reason{{
		Rule: RuleBadInput, Layer: engine.LayerEngine, Decision: engine.Deny, Segment: -1,
		Title: "Bad request", Justification: msg,
	}}}}
	if r != nil {
		if r.Command != nil {
			resp.Command = *r.Command
		}
		resp.Argv = r.Argv
	}
	return resp
}

// RulePolicyError is the rule of the deny given when the configuration in
// force for a request cannot be read or its policy does not compile.
const RulePolicyError = "engine.policy-error"

// policyFailure is the deny response for a request whose configuration
// cannot be loaded.
func policyFailure(policy string, r *Request, err error) Response {
	resp := badInput(policy, r, err)
	resp.Reasons[0].Rule, resp.Reasons[0].Title = RulePolicyError, "Configuration does not load"
	resp.Reasons[0].Justification = "the configuration in force for this command does not load, so nothing is allowed: " + err.Error()
	return resp
}

// unrecorded is the deny answered instead of resp when its audit entry
// could not be written: no answer without its record.
func unrecorded(resp Response, err error) Response {
	msg := "the decision log cannot be written: " + err.Error()
	return Response{Command: resp.Command, Argv: resp.Argv, Error: msg, unrecorded: true,
		Verdict: engine.Verdict{Decision: engine.Deny, Policy: resp.Policy, Reasons: []engine.Reason{{
			Rule: RuleAuditFailed, Layer: engine.LayerEngine, Decision: engine.Deny, Segment: -1,
			Title: "Decision log unavailable", Justification: msg + "; no answer is given without its record",
		}}}}
}
