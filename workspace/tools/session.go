package tools

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/rivumi/rivumi/verdict"
	"github.com/rivumi/rivumi/workspace/bundle"
)

// Session kinds ([Config.SessionKind]).
const (
	SessionMCP = "mcp"
	SessionCLI = "cli"
	SessionAPI = "api"
)

// session is the tools' state that outlives a call: this process's entry
// in session.json and what checkpoint.json holds.
type session struct {
	log      bundle.Sessions
	i        int // this session's index in log
	pending  []bundle.PendingApproval
	inFlight *bundle.InFlight
	closed   bool
}

func (t *Tools) self() *bundle.Session { return &t.sess.log.Sessions[t.sess.i] }

// resume loads the read versions and starts this process's session: from
// checkpoint.json when there is one (refusing a corrupt or foreign one),
// then the events after it; every read version is checked against the
// file on disk and dropped when they differ. Approvals a killed process
// left pending are recorded as interrupted calls.
func (t *Tools) resume() error {
	b := t.w.Bundle()
	cp, ok, err := b.ReadCheckpoint()
	if err != nil {
		return fmt.Errorf("tools: %w", err)
	}
	var after int64
	if ok {
		maps.Copy(t.version, cp.Reads)
		after = cp.EventOffset
	}
	events, err := b.EventsAfter(after)
	if err != nil {
		return fmt.Errorf("tools: %w", err)
	}
	for _, e := range events {
		if e.OK && e.Path != "" && e.SHA256 != "" && (e.Tool == ToolReadFile || e.Tool == ToolReplaceText) {
			t.version[e.Path] = e.SHA256
		}
	}
	var stale []string
	for _, p := range slices.Sorted(maps.Keys(t.version)) {
		cur, err := t.readRegular(p, false)
		if err != nil || sha(cur) != t.version[p] {
			delete(t.version, p)
			stale = append(stale, p)
		}
	}

	if t.sess.log, err = b.ReadSessions(); err != nil {
		return fmt.Errorf("tools: %w", err)
	}
	now := time.Now().UTC()
	for i := range t.sess.log.Sessions {
		// The run's lock is ours: a session that did not end was killed.
		if s := &t.sess.log.Sessions[i]; s.Ended == nil {
			s.Interrupted = true
		}
	}
	var id [8]byte
	_, _ = rand.Read(id[:])
	kind := t.cfg.SessionKind
	if kind == "" {
		kind = SessionAPI
	}
	me := bundle.Session{
		ID: hex.EncodeToString(id[:]), Kind: kind, PID: os.Getpid(), Started: now, Updated: now,
		StaleReads: stale, Tools: map[string]int{}, Sandbox: t.sandbox(), Network: t.cfg.Harness.AllowNetwork,
	}
	if ok {
		me.ResumedFrom = cp.Session
	}
	// Consecutive CLI calls (one process each) under the same sandbox are
	// one session.
	if n := len(t.sess.log.Sessions); n > 0 && kind == SessionCLI {
		last := &t.sess.log.Sessions[n-1]
		if last.Kind == SessionCLI && last.Ended != nil && !last.Interrupted && last.Sandbox == me.Sandbox &&
			last.Network == me.Network && ok && cp.Session == last.ID {
			last.PID, last.Ended = me.PID, nil
			last.StaleReads = append(last.StaleReads, stale...)
			if last.Tools == nil {
				last.Tools = map[string]int{}
			}
			t.sess.i = n - 1
			return t.recordInterrupted(cp, ok, now)
		}
	}
	t.sess.log.Sessions = append(t.sess.log.Sessions, me)
	t.sess.i = len(t.sess.log.Sessions) - 1
	return t.recordInterrupted(cp, ok, now)
}

// recordInterrupted records the approvals a checkpoint holds as pending
// (the process that asked them died) as interrupted calls, then writes
// the state.
func (t *Tools) recordInterrupted(cp bundle.Checkpoint, ok bool, now time.Time) error {
	b := t.w.Bundle()

	if ok && len(cp.PendingApprovals) == 0 && cp.InFlight != nil {
		// Killed during a call: what it did is on disk, unrecorded.
		c := cp.InFlight
		ev := bundle.Event{Tool: c.Tool, Args: c.Args, BytesIn: len(c.Args),
			Error: "interrupted: rivumi stopped during this call (started " + c.Started.Format(time.RFC3339) + "); what it changed is on disk: read the files again"}
		if _, err := b.Append(ev); err != nil {
			return fmt.Errorf("tools: %w", err)
		}
	}
	if ok {
		for _, p := range cp.PendingApprovals {
			args, _ := json.Marshal(map[string]string{"command": p.Command})
			ev := bundle.Event{Tool: p.Tool, Args: args, Decision: verdict.Ask.String(), Rules: p.Rules,
				Approval: "interrupted", BytesIn: len(args),
				Error: "interrupted: rivumi stopped while this call waited for approval; the command did not run (call it again)"}
			if _, err := b.Append(ev); err != nil {
				return fmt.Errorf("tools: %w", err)
			}
			t.self().Approvals = append(t.self().Approvals, bundle.Approval{
				Time: now, Tool: p.Tool, Command: p.Command, Rules: p.Rules, Answer: "interrupted"})
		}
	}
	return t.saveState()
}

// saveState writes checkpoint.json, then session.json.
func (t *Tools) saveState() error {
	b := t.w.Bundle()
	run, err := b.RunID()
	if err != nil {
		return fmt.Errorf("tools: %w", err)
	}
	seq, off := b.EventsEnd()
	me := t.self()
	me.Updated = time.Now().UTC()
	cp := bundle.Checkpoint{
		Run: run, Session: me.ID, EventSeq: seq, EventOffset: off,
		Reads: maps.Clone(t.version), PendingApprovals: slices.Clone(t.sess.pending), InFlight: t.sess.inFlight,
	}
	return errors.Join(b.WriteCheckpoint(cp), b.WriteSessions(t.sess.log))
}

// SetClient records the MCP client calling the tools (as it named itself
// in the initialize request) in this session, once per name, version and
// protocol.
func (t *Tools) SetClient(name, version, protocol string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := bundle.Client{Name: name, Version: version, Protocol: protocol}
	if t.sess.closed || slices.Contains(t.self().Clients, c) {
		return nil
	}
	t.self().Clients = append(t.self().Clients, c)
	return t.saveState()
}

// Called records, in the session and the checkpoint, a call the caller
// handled itself and recorded in events.jsonl (the MCP server's finish,
// a call of a tool that does not exist).
func (t *Tools) Called(name string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.called(name)
}

func (t *Tools) called(name string) error {
	if t.sess.closed {
		return errors.New("tools: closed")
	}
	t.self().Tools[name]++
	return t.saveState()
}

// Close ends the session: its end time is recorded in session.json and
// the checkpoint written a last time. Later calls fail. Close is
// idempotent.
func (t *Tools) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sess.closed {
		return nil
	}
	now := time.Now().UTC()
	t.self().Ended = &now
	err := t.saveState()
	t.sess.closed = true
	return err
}

// askStarted records a pending approval in the checkpoint before the
// question is put; askEnded removes it and records the answer (and any
// grants the answer recorded).
func (t *Tools) askStarted(p bundle.PendingApproval) error {
	t.sess.pending = append(t.sess.pending, p)
	return t.saveState()
}

func (t *Tools) askEnded(p bundle.PendingApproval, answer string, grants []verdict.Grant) error {
	if i := slices.IndexFunc(t.sess.pending, func(q bundle.PendingApproval) bool {
		return q.Asked.Equal(p.Asked) && q.Command == p.Command
	}); i >= 0 {
		t.sess.pending = slices.Delete(t.sess.pending, i, i+1)
	}
	me := t.self()
	me.Approvals = append(me.Approvals, bundle.Approval{Time: time.Now().UTC(), Tool: p.Tool, Command: p.Command, Rules: p.Rules, Answer: answer})
	for _, g := range grants {
		me.Grants = append(me.Grants, bundle.Grant{Prefix: g.Prefix, Rules: g.Rules})
	}
	return t.saveState()
}

// begin records, before a call that may change the work tree or runs a
// check, that it is under way: a process killed during it leaves that in
// the checkpoint, and the next records the call as interrupted.
func (t *Tools) begin(name string, args []byte) error {
	switch name {
	case ToolReplaceText, ToolApplyPatch, ToolShell, ToolRunCheck:
	default:
		return nil
	}
	t.sess.inFlight = &bundle.InFlight{Tool: name, Args: compactArgs(args), Started: time.Now().UTC()}
	return t.saveState()
}
