package server

import (
	"context"
	"errors"

	"github.com/rivumi/rivumi/engine"
)

// Request asks for one verdict. Exactly one of Command and Argv is set.
// Paths must be absolute; without Cwd and Workspace, relative paths in the
// command count as inside an unknown workspace. A server fills the fields a
// request leaves empty from its defaults, but for a request that names its
// Cwd and no Workspace the workspace is that cwd's project (the nearest
// directory holding .git when FollowSymlinks, else the cwd), never the
// server's. FollowSymlinks grades
// paths where they point on the disk of the machine that grades
// ([engine.FollowSymlinks]); ask for it only when the command runs there
// (the hooks do).
type Request struct {
	Command   *string        `json:"command,omitempty"`
	Argv      []string       `json:"argv,omitempty"`
	Cwd       string         `json:"cwd,omitempty"`
	Workspace string         `json:"workspace,omitempty"`
	Home      string         `json:"home,omitempty"`
	Shell     string         `json:"shell,omitempty"`
	Grants    []engine.Grant `json:"grants,omitempty"`
	// FollowSymlinks: resolve operands, redirect and cd targets through
	// the symlinks on this machine's disk (lstat only).
	FollowSymlinks bool `json:"follow_symlinks,omitempty"`
}

// Text returns a request for grading command text.
func Text(command string) Request { return Request{Command: &command} }

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

// Validate reports what is wrong with r, or nil.
func (r *Request) Validate() error {
	switch {
	case r.Command == nil && r.Argv == nil:
		return errors.New(`missing "command" or "argv"`)
	case r.Command != nil && r.Argv != nil:
		return errors.New(`give "command" or "argv", not both`)
	case r.Argv != nil && len(r.Argv) == 0:
		return errors.New(`empty "argv"`)
	}
	return r.context().Validate()
}

func (r *Request) context() engine.Context {
	return engine.Context{Cwd: r.Cwd, Workspace: r.Workspace, Home: r.Home, Shell: r.Shell, Grants: r.Grants,
		FollowSymlinks: r.FollowSymlinks}
}

// evalOptions returns the engine options for r.
func (r *Request) evalOptions() []engine.EvalOption {
	return r.context().Options()
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

// Evaluate validates r and grades it with e. An invalid request is an
// error (and no verdict).
func (r *Request) Evaluate(ctx context.Context, e *engine.Engine) (engine.Verdict, error) {
	if err := r.Validate(); err != nil {
		return engine.Verdict{}, err
	}
	if r.Command != nil {
		return e.EvaluateText(ctx, *r.Command, r.evalOptions()...), nil
	}
	return e.EvaluateArgv(ctx, r.Argv, r.evalOptions()...), nil
}
