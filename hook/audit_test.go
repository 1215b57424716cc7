package hook

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/verdict"
)

// failingSink is a decision log on a full disk.
type failingSink struct{ calls int }

func (f *failingSink) Log(context.Context, audit.Entry) error {
	f.calls++
	return syscall.ENOSPC
}

// No answer that lets the tool run goes out without its record.
func TestAuditFailureBlocks(t *testing.T) {
	grade := func(d verdict.Decision) func(context.Context) (Grader, error) {
		return graderOf(func(context.Context, verdict.Request) (verdict.Verdict, error) {
			return verdict.Verdict{Decision: d, Reasons: []verdict.Reason{{Rule: "r", Decision: d}}}, nil
		})
	}
	for _, c := range []struct {
		name       string
		agent      Agent
		cfg        Config
		payload    string
		wantCode   int
		wantStdout string // a substring; "" means empty
	}{
		{"allow blocks", ClaudeCode, Config{NewGrader: grade(verdict.Allow)}, "ls", 2, ""},
		{"ask blocks", ClaudeCode, Config{NewGrader: grade(verdict.Ask)}, "ls", 2, ""},
		{"deny stays deny", ClaudeCode, Config{NewGrader: grade(verdict.Deny)}, "ls", 0, `"permissionDecision":"deny"`},
		{"gemini allow blocks", Gemini, Config{NewGrader: grade(verdict.Allow)}, "ls", 2, ""},
		{"codex silence blocks", Codex, Config{NewGrader: grade(verdict.Allow), Workspace: "/work/proj"}, "ls", 2, ""},
		{"best effort answers", ClaudeCode, Config{NewGrader: grade(verdict.Allow), AuditBestEffort: true}, "ls", 0, `"permissionDecision":"allow"`},
		{"shadow never blocks", ClaudeCode, Config{NewGrader: grade(verdict.Allow), Shadow: true}, "ls", 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			sink := &failingSink{}
			c.cfg.Agent, c.cfg.Audit = c.agent, sink
			c.cfg.Getenv = func(string) string { return "" }
			out, errs, code := run(t, c.cfg, strings.NewReader(string(SamplePayload(c.agent, c.payload, "/work/proj"))))
			if code != c.wantCode || (c.wantStdout == "" && out != "") || !strings.Contains(out, c.wantStdout) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and stdout %q", code, out, errs, c.wantCode, c.wantStdout)
			}
			if sink.calls != 1 || !strings.Contains(errs, "rivumi: audit: no space left on device") {
				t.Errorf("%d log calls, stderr %q; want 1 and the error reported", sink.calls, errs)
			}
			if c.wantCode == 2 && !strings.Contains(errs, "the decision log cannot be written") {
				t.Errorf("stderr %q does not say why it blocked", errs)
			}
		})
	}
	// Decide says what happened, for embedders.
	a := Decide(context.Background(), Config{Agent: ClaudeCode, NewGrader: grade(verdict.Allow), Audit: &failingSink{},
		Getenv: func(string) string { return "" }}, strings.NewReader(string(SamplePayload(ClaudeCode, "ls", "/work/proj"))))
	if a.Reply != "deny" || a.Failure == "" || !errors.Is(a.AuditError, syscall.ENOSPC) || a.Verdict.Decision != verdict.Allow || a.command != "ls" {
		t.Errorf("Decide = %+v", a)
	}
}
