package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/grant"
	"github.com/rivumi/rivumi/harness"
	"github.com/rivumi/rivumi/verdict"
)

// Answers offered in the elicitation form.
const (
	AnswerOnce   = "once"
	AnswerAlways = "always"
	AnswerDeny   = "deny"
)

// elicitApprover puts an ask to the client of the call in progress (the
// request in the context, under callKey).
type elicitApprover struct {
	project string
}

// ErrNoElicitation is the approver's error when the client cannot be
// asked; the refusal carries the grant hint after it.
var ErrNoElicitation = errors.New("the MCP client does not support elicitation, so nobody can approve it: denied")

// Approve asks the client; see the package documentation.
func (a *elicitApprover) Approve(ctx context.Context, req harness.ApprovalRequest) (harness.Answer, error) {
	call, _ := ctx.Value(callKey{}).(*mcp.CallToolRequest)
	if call == nil || call.Session == nil || !canElicit(call.ClientCapabilities()) {
		return harness.AnswerDeny, fmt.Errorf("%w.%s", ErrNoElicitation, grant.Hint(req.Verdict, a.project))
	}
	choices := []any{AnswerOnce, AnswerDeny}
	if len(req.Grants) > 0 {
		choices = []any{AnswerOnce, AnswerAlways, AnswerDeny}
	}
	res, err := call.Session.Elicit(ctx, &mcp.ElicitParams{
		Mode:    "form",
		Message: question(req),
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"answer": map[string]any{
					"type": "string", "title": "Run it?", "enum": choices,
					"description": answerHelp(req.Grants),
				},
			},
			"required": []any{"answer"},
		},
	})
	if err != nil {
		return harness.AnswerDeny, fmt.Errorf("elicitation failed: %w", err)
	}
	switch res.Action {
	case "accept":
	case "decline":
		return harness.AnswerDeny, nil
	case "cancel":
		return harness.AnswerDeny, errors.New("the question was dismissed (cancel): denied")
	default:
		return harness.AnswerDeny, fmt.Errorf("unknown elicitation action %q: denied", res.Action)
	}
	ans, _ := res.Content["answer"].(string)
	switch {
	case ans == AnswerOnce:
		return harness.AnswerOnce, nil
	case ans == AnswerAlways && len(req.Grants) > 0:
		return harness.AnswerAlways, nil
	case ans == AnswerDeny:
		return harness.AnswerDeny, nil
	}
	return harness.AnswerDeny, fmt.Errorf("answer %q is not one of %v: denied", ans, choices)
}

// canElicit reports whether the client declared form elicitation (an
// empty elicitation capability means form).
func canElicit(c *mcp.ClientCapabilities) bool {
	return c != nil && c.Elicitation != nil && (c.Elicitation.Form != nil || c.Elicitation.URL == nil)
}

// question is the elicitation's message: the command, where, and every
// reason of the verdict (redacted).
func question(req harness.ApprovalRequest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "rivumi: the agent wants to run, in %s:\n\n    %s\n\nThe policy asks:", printable(req.Dir), printable(strings.Join(req.Argv, " ")))
	for _, r := range req.Verdict.Reasons {
		if r.Decision != verdict.Ask {
			continue
		}
		fmt.Fprintf(&b, "\n- %s: %s", r.Rule, r.Title)
		if r.Justification != "" {
			b.WriteString(" — " + r.Justification)
		}
	}
	return audit.Redact(b.String())
}

// printable returns s as it is when it is one line of printable text, and
// Go-quoted otherwise, so that a command cannot draw its own lines (a fake
// "The policy asks:") into the question.
func printable(s string) string {
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

func answerHelp(gs []verdict.Grant) string {
	if len(gs) == 0 {
		return "once: run it this time; deny: refuse it (no grant can cover this command)"
	}
	var parts []string
	for _, g := range gs {
		parts = append(parts, strings.Join(g.Prefix, " ")+" ("+strings.Join(g.Rules, ", ")+")")
	}
	return "once: run it this time; always: run it and allow " + strings.Join(parts, "; ") + " in this project from now on; deny: refuse it"
}
