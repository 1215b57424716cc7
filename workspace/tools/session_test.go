package tools_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/grant"
	"github.com/rivumi/rivumi/harness"
	"github.com/rivumi/rivumi/workspace"
	"github.com/rivumi/rivumi/workspace/bundle"
	"github.com/rivumi/rivumi/workspace/tools"
)

// reopen makes new tools of the fixture's workspace, as a new process
// does (the old tools are dropped unclosed, as a killed process leaves
// them).
func (f *fixture) reopen(t *testing.T, tc tools.Config) error {
	t.Helper()
	tc.Workspace = f.w
	ts, err := tools.New(tc)
	if err != nil {
		return err
	}
	f.tools = ts
	return nil
}

func sessions(t *testing.T, w *workspace.Workspace) []bundle.Session {
	t.Helper()
	s, err := w.Bundle().ReadSessions()
	if err != nil {
		t.Fatal(err)
	}
	return s.Sessions
}

// The checkpoint carries the read versions to the next process: a file
// read before is replaced without a fresh read; one changed on disk in
// between is a stale read (dropped, named in session.json), and so is one
// whose checkpointed version does not match the file any more.
func TestResumeFromCheckpoint(t *testing.T) {
	f := newFixture(t)
	for _, p := range []string{"src/main.go", "src/util.go", "README.md"} {
		f.mustOK(t, tools.ToolReadFile, tools.ReadFileArgs{Path: p}, nil)
	}
	cp, ok, err := f.w.Bundle().ReadCheckpoint()
	if err != nil || !ok {
		t.Fatalf("checkpoint: %v %v", ok, err)
	}
	if len(cp.Reads) != 3 || cp.EventSeq != 3 {
		t.Fatalf("checkpoint = %+v, want 3 reads after event 3", cp)
	}
	// Changed while no process served the run: that read is stale.
	if err := os.WriteFile(filepath.Join(f.w.Dir(), "src/util.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The events are the record; the checkpoint only a summary of them:
	// events.jsonl without the checkpoint resumes the same.
	if err := os.Remove(f.w.Bundle().File(bundle.CheckpointFile)); err != nil {
		t.Fatal(err)
	}
	if err := f.reopen(t, tools.Config{SessionKind: tools.SessionCLI}); err != nil {
		t.Fatal(err)
	}
	f.mustOK(t, tools.ToolReplaceText, tools.ReplaceTextArgs{Path: "src/main.go", Old: "hello", New: "bye"}, nil)
	f.mustRefuse(t, tools.ToolReplaceText, tools.ReplaceTextArgs{Path: "src/util.go", Old: "package", New: "pkg"}, "has not been read")

	// A resume from the checkpoint proper (now rewritten after each call).
	if err := os.WriteFile(filepath.Join(f.w.Dir(), "README.md"), []byte("# changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.reopen(t, tools.Config{SessionKind: tools.SessionCLI}); err != nil {
		t.Fatal(err)
	}
	f.mustOK(t, tools.ToolReplaceText, tools.ReplaceTextArgs{Path: "src/main.go", Old: "bye", New: "ciao"}, nil)
	f.mustRefuse(t, tools.ToolReplaceText, tools.ReplaceTextArgs{Path: "README.md", Old: "changed", New: "x"}, "has not been read")
	if err := f.tools.Close(); err != nil {
		t.Fatal(err)
	}

	ss := sessions(t, f.w)
	if len(ss) != 3 {
		t.Fatalf("%d sessions, want 3: %+v", len(ss), ss)
	}
	if !ss[0].Interrupted || !ss[1].Interrupted || ss[2].Interrupted || ss[2].Ended == nil || ss[1].Ended != nil {
		t.Errorf("interrupted/ended = %v/%v %v/%v %v/%v; want the first two killed, the last ended",
			ss[0].Interrupted, ss[0].Ended, ss[1].Interrupted, ss[1].Ended, ss[2].Interrupted, ss[2].Ended)
	}
	if ss[0].Tools[tools.ToolReadFile] != 3 || ss[2].Tools[tools.ToolReplaceText] != 2 {
		t.Errorf("tool counts %v, %v", ss[0].Tools, ss[2].Tools)
	}
	if !slices.Equal(ss[1].StaleReads, []string{"src/util.go"}) || !slices.Equal(ss[2].StaleReads, []string{"README.md"}) {
		t.Errorf("stale reads %v, %v", ss[1].StaleReads, ss[2].StaleReads)
	}
	if ss[1].ResumedFrom != "" || ss[2].ResumedFrom != ss[1].ID || ss[2].Kind != tools.SessionCLI || ss[2].Sandbox == "" {
		t.Errorf("session 3 = %+v, want resumed from %s", ss[2], ss[1].ID)
	}
	if _, err := f.tools.Call(context.Background(), tools.ToolListFiles, nil); err == nil {
		t.Error("a call after Close did not fail")
	}
}

// A corrupt checkpoint, one of another run, one whose events are gone and
// one of another format are refused with an error that says so; nothing
// is resumed from them.
func TestResumeRefusesUntrustedCheckpoint(t *testing.T) {
	f := newFixture(t)
	f.mustOK(t, tools.ToolReadFile, tools.ReadFileArgs{Path: "src/main.go"}, nil)
	f.mustOK(t, tools.ToolListFiles, tools.ListFilesArgs{}, nil)
	cpFile := f.w.Bundle().File(bundle.CheckpointFile)
	good, err := os.ReadFile(cpFile)
	if err != nil {
		t.Fatal(err)
	}
	other := newFixture(t)
	foreign, err := os.ReadFile(other.w.Bundle().File(bundle.CheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	events, err := os.ReadFile(f.w.Bundle().File(bundle.EventsFile))
	if err != nil {
		t.Fatal(err)
	}
	firstLine := events[:strings.IndexByte(string(events), '\n')+1]
	tests := []struct {
		name   string
		cp     string
		events []byte
		want   string
	}{
		{"not JSON", `{"format":1,`, nil, "corrupt"},
		{"unknown field", strings.Replace(string(good), `"format"`, `"trust_me": true, "format"`, 1), nil, "corrupt"},
		{"edited read version", strings.Replace(string(good), `"src/main.go": "`, `"src/main.go": "0`, 1), nil, "digest"},
		{"another run", string(foreign), nil, "another run"},
		{"another format", strings.Replace(string(good), `"format": 1`, `"format": 2`, 1), nil, "format 2"},
		{"events cut", string(good), firstLine, "does not hold event 2"},
		{"events emptied", string(good), []byte{}, "does not hold event 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.WriteFile(cpFile, []byte(tt.cp), 0o600); err != nil {
				t.Fatal(err)
			}
			evs := events
			if tt.events != nil {
				evs = tt.events
			}
			if err := os.WriteFile(f.w.Bundle().File(bundle.EventsFile), evs, 0o600); err != nil {
				t.Fatal(err)
			}
			err := f.reopen(t, tools.Config{})
			var ce *bundle.CheckpointError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "refusing to resume") {
				t.Errorf("New = %v, want a checkpoint refusal mentioning %q", err, tt.want)
			}
		})
	}
	// The good checkpoint with its events resumes.
	if err := os.WriteFile(cpFile, good, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.w.Bundle().File(bundle.EventsFile), events, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := f.reopen(t, tools.Config{}); err != nil {
		t.Fatalf("the good checkpoint: %v", err)
	}
}

// The checkpoint names an approval while it is pending and no more once
// it is answered; a process killed while it waited leaves it there, and
// the next records the call as interrupted (the command never ran).
func TestResumeRecordsInterruptedApproval(t *testing.T) {
	var atAsk []byte
	var f *fixture
	f = newFixture(t, withEngine(t), func(_ *workspace.Config, tc *tools.Config) {
		tc.Approver = harness.ApproverFunc(func(context.Context, harness.ApprovalRequest) (harness.Answer, error) {
			b, err := os.ReadFile(f.w.Bundle().File(bundle.CheckpointFile))
			if err != nil {
				t.Error(err)
			}
			atAsk = b
			return harness.AnswerDeny, nil
		})
	})
	f.mustRefuse(t, tools.ToolShell, tools.ShellArgs{Command: "rm -rf out.txt"}, "answer deny")
	if !strings.Contains(string(atAsk), `"command": "rm -rf out.txt"`) {
		t.Fatalf("checkpoint while asking:\n%s\nwant the pending approval", atAsk)
	}
	cp, _, err := f.w.Bundle().ReadCheckpoint()
	if err != nil || len(cp.PendingApprovals) != 0 {
		t.Fatalf("checkpoint after the answer: %+v %v; want nothing pending", cp, err)
	}
	if ss := sessions(t, f.w); len(ss[0].Approvals) != 1 || ss[0].Approvals[0].Answer != "deny" {
		t.Errorf("approvals = %+v", ss[0].Approvals)
	}
	// Killed while asking: the checkpoint is the one written before the
	// question, and no event of the call was appended.
	evs, _ := f.w.Bundle().Events()
	if err := os.WriteFile(f.w.Bundle().File(bundle.CheckpointFile), atAsk, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := f.reopen(t, tools.Config{}); err != nil {
		t.Fatal(err)
	}
	after, _ := f.w.Bundle().Events()
	if len(after) != len(evs)+1 {
		t.Fatalf("%d events after resume, want %d", len(after), len(evs)+1)
	}
	last := after[len(after)-1]
	if last.Tool != tools.ToolShell || last.OK || last.Approval != "interrupted" || !strings.Contains(last.Error, "did not run") {
		t.Errorf("interrupted call recorded as %+v", last)
	}
	ss := sessions(t, f.w)
	if a := ss[len(ss)-1].Approvals; len(a) != 1 || a[0].Answer != "interrupted" || a[0].Command != "rm -rf out.txt" {
		t.Errorf("resumed session approvals = %+v", a)
	}
	if cp, _, _ := f.w.Bundle().ReadCheckpoint(); len(cp.PendingApprovals) != 0 {
		t.Errorf("still pending after resume: %+v", cp.PendingApprovals)
	}
}

// Consecutive CLI calls are one session; another kind starts a new one.
func TestCLICallsShareASession(t *testing.T) {
	f := newFixture(t)
	if err := f.tools.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"src/main.go", "README.md"} {
		if err := f.reopen(t, tools.Config{SessionKind: tools.SessionCLI}); err != nil {
			t.Fatal(err)
		}
		f.mustOK(t, tools.ToolReadFile, tools.ReadFileArgs{Path: p}, nil)
		if err := f.tools.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.reopen(t, tools.Config{SessionKind: tools.SessionMCP}); err != nil {
		t.Fatal(err)
	}
	ss := sessions(t, f.w)
	if len(ss) != 3 || ss[1].Kind != tools.SessionCLI || ss[1].Tools[tools.ToolReadFile] != 2 || ss[1].Ended == nil || ss[2].Kind != tools.SessionMCP {
		t.Errorf("sessions = %+v; want api, one cli with both calls, mcp", ss)
	}
}

// A call that may change the work tree is in the checkpoint while it runs
// and not after; a process killed during it leaves it there, and the next
// records it as interrupted.
func TestResumeRecordsInterruptedCall(t *testing.T) {
	var during []byte
	f := newFixture(t)
	tools.SetReplaceHook(t, func(string) error {
		b, err := os.ReadFile(f.w.Bundle().File(bundle.CheckpointFile))
		if err != nil {
			t.Error(err)
		}
		during = b
		return nil
	})
	f.mustOK(t, tools.ToolReadFile, tools.ReadFileArgs{Path: "src/main.go"}, nil)
	f.mustOK(t, tools.ToolReplaceText, tools.ReplaceTextArgs{Path: "src/main.go", Old: "hello", New: "bye"}, nil)
	if !strings.Contains(string(during), `"in_flight"`) || !strings.Contains(string(during), `"tool": "replace_text"`) {
		t.Fatalf("checkpoint during replace_text:\n%s\nwant the call in flight", during)
	}
	if cp, _, _ := f.w.Bundle().ReadCheckpoint(); cp.InFlight != nil {
		t.Fatalf("in flight after the call: %+v", cp.InFlight)
	}
	// Killed during the call: its checkpoint, no event of it.
	evs, _ := f.w.Bundle().Events()
	raw, _ := os.ReadFile(f.w.Bundle().File(bundle.EventsFile))
	lines := strings.SplitAfter(string(raw), "\n")
	os.WriteFile(f.w.Bundle().File(bundle.EventsFile), []byte(strings.Join(lines[:len(evs)-1], "")), 0o600)
	os.WriteFile(f.w.Bundle().File(bundle.CheckpointFile), during, 0o600)
	if err := f.reopen(t, tools.Config{}); err != nil {
		t.Fatal(err)
	}
	after, _ := f.w.Bundle().Events()
	last := after[len(after)-1]
	if len(after) != len(evs) || last.Tool != tools.ToolReplaceText || last.OK || !strings.Contains(last.Error, "interrupted") ||
		!strings.Contains(string(last.Args), `"old":"hello"`) {
		t.Errorf("events after resume: %d (want %d), last %+v", len(after), len(evs), last)
	}
	// The file changed under the interrupted call: its read is stale.
	if ss := sessions(t, f.w); !slices.Equal(ss[len(ss)-1].StaleReads, []string{"src/main.go"}) {
		t.Errorf("stale reads %v, want src/main.go", ss[len(ss)-1].StaleReads)
	}
}

// An "always" answer is in the session with the grant it recorded.
func TestSessionRecordsApprovalAndGrant(t *testing.T) {
	store, err := grant.Load(filepath.Join(t.TempDir(), "grants.json"))
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, withEngine(t), func(_ *workspace.Config, tc *tools.Config) {
		tc.Grants = store
		tc.Approver = harness.ApproverFunc(func(context.Context, harness.ApprovalRequest) (harness.Answer, error) {
			return harness.AnswerAlways, nil
		})
	})
	f.mustOK(t, tools.ToolShell, tools.ShellArgs{Command: "rm -rf out.txt"}, nil)
	me := sessions(t, f.w)[0]
	if len(me.Approvals) != 1 || me.Approvals[0].Answer != "always" || me.Approvals[0].Command != "rm -rf out.txt" ||
		len(me.Grants) != 1 || me.Grants[0].Prefix[0] != "rm" || me.Tools[tools.ToolShell] != 1 {
		t.Errorf("session = %+v", me)
	}
}
