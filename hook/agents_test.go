package hook

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/verdict"
)

// agentCase is one payload an agent CLI sent (captured from the real CLI
// with a logging hook) and what rivumi must make of it.
type agentCase struct {
	name    string
	payload string
	// interactive is the session's answer to Config.Interactive.
	interactive bool
	// command is what the grader must be asked ("" when it must not be
	// called), paths the file tool's paths (checked when set).
	command string
	paths   []string
	// reply is the answer: allow, ask, deny, "" (no opinion) or "fail".
	reply string
	// stdout holds, when set, a fragment the agent's answer must carry.
	stdout string
}

// fakeGrader denies a command with curl, asks for python3 -c and allows
// the rest, and records what it was asked.
func fakeGrader(asked *[]verdict.Request) func(context.Context) (Grader, error) {
	return graderOf(func(_ context.Context, r verdict.Request) (verdict.Verdict, error) {
		*asked = append(*asked, r)
		cmd := strings.Join(r.Argv, " ")
		if r.Command != nil {
			cmd = *r.Command
		}
		switch {
		case strings.Contains(cmd, "curl"):
			return verdict.Verdict{Decision: verdict.Deny, Reasons: []verdict.Reason{{Rule: "floor.fetch-run", Decision: verdict.Deny}}}, nil
		case strings.Contains(cmd, "python3 -c"):
			return verdict.Verdict{Decision: verdict.Ask, Reasons: []verdict.Reason{{Rule: "shell.interpreter-code", Decision: verdict.Ask}}}, nil
		}
		return verdict.Verdict{Decision: verdict.Allow, Reasons: []verdict.Reason{{Rule: "allow.workspace-write", Decision: verdict.Allow}}}, nil
	})
}

// testAgentCases runs each case through [Decide] and [Write] for agent, in
// a session whose project is proj and home /home/me.
func testAgentCases(t *testing.T, agent Agent, env map[string]string, cases []agentCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var asked []verdict.Request
			cfg := Config{Agent: agent, Home: "/home/me", GOOS: "linux", NewGrader: fakeGrader(&asked),
				Getenv: func(k string) string { return env[k] }, Interactive: func() bool { return c.interactive }}
			a := Decide(context.Background(), cfg, strings.NewReader(c.payload))
			var out, errb bytes.Buffer
			code := Write(cfg, a, &out, &errb)
			reply := a.Reply
			if a.Failure != "" {
				reply = "fail"
			}
			if reply != c.reply {
				t.Errorf("reply %q (%s; failure %q), want %q", reply, a.Reason, a.Failure, c.reply)
			}
			switch {
			case c.command == "" && len(asked) > 0:
				t.Errorf("the grader was asked %q, want not", *asked[0].Command)
			case c.command != "" && len(asked) == 0:
				t.Errorf("the grader was not asked, want %q", c.command)
			case c.command != "" && (asked[0].Command == nil || *asked[0].Command != c.command):
				t.Errorf("the grader was asked %+v, want %q", asked[0], c.command)
			}
			if c.paths != nil && strings.Join(a.paths, " ") != strings.Join(c.paths, " ") {
				t.Errorf("paths %q, want %q", a.paths, c.paths)
			}
			if c.stdout != "" && !strings.Contains(out.String(), c.stdout) {
				t.Errorf("exit %d, stdout %q, stderr %q: want %q in stdout", code, out.String(), errb.String(), c.stdout)
			}
			if blocked, _ := Blocks(agent, out.Bytes(), errb.Bytes(), code); blocked != (reply == "deny" || reply == "fail") {
				t.Errorf("Blocks = %v for reply %q (exit %d, stdout %q, stderr %q)", blocked, reply, code, out.String(), errb.String())
			}
		})
	}
}
