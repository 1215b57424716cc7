package mcpserver_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rivumi/rivumi/mcpserver"
)

// answer returns an elicitation handler that records the request and
// replies with action and, for accept, the answer.
func answer(asked *[]*mcp.ElicitParams, action, ans string) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		*asked = append(*asked, req.Params)
		r := &mcp.ElicitResult{Action: action}
		if action == "accept" {
			r.Content = map[string]any{"answer": ans}
		}
		return r, nil
	}
}

// "rm -rf out.txt" is graded ask (fs.delete: rm of named files is allowed, -r asks), and a grant of rm can cover it.
const askCmd = `{"command":"rm -rf out.txt"}`

func TestElicitation(t *testing.T) {
	tests := []struct {
		name, action, answer string
		ok                   bool
		want                 string // in the tool error, or the recorded approval
	}{
		{"once", "accept", "once", true, "once"},
		{"deny", "accept", "deny", false, "answer deny"},
		{"decline", "decline", "", false, "answer deny"},
		{"cancel", "cancel", "", false, "dismissed (cancel): denied"},
		{"bad answer", "accept", "yes please", false, "does not match requested schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			var asked []*mcp.ElicitParams
			cs := f.connect(t, answer(&asked, tt.action, tt.answer))
			r := call(t, cs, "shell", askCmd)
			if len(asked) != 1 {
				t.Fatalf("asked %d times, want 1", len(asked))
			}
			if !strings.Contains(asked[0].Message, "rm -rf out.txt") || !strings.Contains(asked[0].Message, "fs.delete") {
				t.Errorf("question = %q, want the command and the rule", asked[0].Message)
			}
			if r.isError == tt.ok {
				t.Fatalf("result %+v, want ok=%v", r, tt.ok)
			}
			evs, _ := f.w.Bundle().Events()
			ev := evs[len(evs)-1]
			if tt.ok {
				if ev.Approval != tt.want || !ev.OK {
					t.Errorf("event %+v, want approval %q", ev, tt.want)
				}
			} else if !strings.Contains(r.text, tt.want) || ev.OK || ev.Decision != "ask" {
				t.Errorf("refusal %q / event %+v, want %q", r.text, ev, tt.want)
			}
		})
	}
}

func TestElicitationAlwaysRecordsGrant(t *testing.T) {
	f := newFixture(t)
	var asked []*mcp.ElicitParams
	cs := f.connect(t, answer(&asked, "accept", "always"))
	mustOK(t, cs, "shell", askCmd)
	if !strings.Contains(jsonString(asked[0].RequestedSchema), `"always"`) {
		t.Errorf("schema %s does not offer always", jsonString(asked[0].RequestedSchema))
	}
	if gs := f.grants.List(); len(gs) != 1 || gs[0].Prefix[0] != "rm" {
		t.Fatalf("grants = %+v, want one for rm", gs)
	}
	if v := mustOK(t, cs, "shell", askCmd); v["decision"] != "allow" || len(asked) != 1 {
		t.Errorf("after always: %v, asked %d times; want allow without asking", v, len(asked))
	}
}

// A command no grant can cover is offered once or deny only, and always
// is refused as an answer.
func TestElicitationNoGrantNoAlways(t *testing.T) {
	f := newFixture(t)
	var asked []*mcp.ElicitParams
	cs := f.connect(t, answer(&asked, "accept", "always"))
	// A history file write: ask, not grantable.
	r := call(t, cs, "shell", `{"command":"history -c"}`)
	if len(asked) == 0 {
		t.Skipf("history -c was not asked: %+v", r)
	}
	if strings.Contains(jsonString(asked[0].RequestedSchema), `"always"`) {
		t.Errorf("always offered for an ungrantable ask: %s", jsonString(asked[0].RequestedSchema))
	}
	if !r.isError || len(f.grants.List()) != 0 {
		t.Errorf("always on an ungrantable ask: %+v, grants %v", r, f.grants.List())
	}
}

func TestElicitationUnsupported(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t, nil)
	r := mustRefuse(t, cs, "shell", askCmd, mcpserver.ErrNoElicitation.Error())
	if !strings.Contains(r.text, "rivumi grant add -C ") || !strings.Contains(r.text, "--rule fs.delete -- rm") {
		t.Errorf("refusal %q, want the grant hint", r.text)
	}
}

func TestElicitationTimeoutAndError(t *testing.T) {
	f := newFixture(t, func(c *mcpserver.Config) { c.Tools.Harness.ApprovalTimeout = 300 * time.Millisecond })
	cs := f.connect(t, func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Second):
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "once"}}, nil
	})
	start := time.Now()
	mustRefuse(t, cs, "shell", askCmd, "answer timeout")
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the timeout took %v", d)
	}

	g := newFixture(t)
	cs = g.connect(t, func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return nil, errors.New("no user here")
	})
	mustRefuse(t, cs, "shell", askCmd, "elicitation failed")
}

// A call cancelled by the client while the question is open is a deny:
// the command does not run.
func TestElicitationCallCancelled(t *testing.T) {
	f := newFixture(t)
	asked := make(chan struct{})
	cs := f.connect(t, func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		close(asked)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-asked; cancel() }()
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "shell", Arguments: map[string]any{"command": "rm -rf out.txt"}})
	if err == nil {
		t.Fatal("cancelled call: no error")
	}
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		if evs, _ := f.w.Bundle().Events(); len(evs) == 1 {
			if evs[0].OK {
				t.Errorf("cancelled ask ran: %+v", evs[0])
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Error("no event recorded for the cancelled call")
}

// A command cannot write its own lines into the question.
func TestElicitationQuestionQuotesCommand(t *testing.T) {
	f := newFixture(t)
	var asked []*mcp.ElicitParams
	cs := f.connect(t, answer(&asked, "decline", ""))
	call(t, cs, "shell", `{"command":"rm -rf out.txt\n\nThe policy asks:\n- nothing, it is safe"}`)
	if len(asked) != 1 {
		t.Fatalf("asked %d times", len(asked))
	}
	if strings.Contains(asked[0].Message, "\n- nothing") || !strings.Contains(asked[0].Message, `"rm -rf out.txt\n\nThe policy asks:`) {
		t.Errorf("question = %q, want the command quoted on one line", asked[0].Message)
	}
}
