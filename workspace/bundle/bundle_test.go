package bundle_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rivumi/rivumi/workspace/bundle"
)

const token = "ghp_0123456789abcdefghijABCDEFGHIJ012345"

func TestAppendRedactsAndNumbers(t *testing.T) {
	d, err := bundle.Create(filepath.Join(t.TempDir(), "b"))
	if err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]string{"command": "echo " + token, "password": "hunter2"})
	for range 3 {
		if _, err := d.Append(bundle.Event{Tool: "shell", Args: args, Summary: "printed " + token}); err != nil {
			t.Fatal(err)
		}
	}
	raw, _ := os.ReadFile(d.File(bundle.EventsFile))
	if strings.Contains(string(raw), "ghp_") || strings.Contains(string(raw), "hunter2") {
		t.Errorf("events.jsonl holds a secret:\n%s", raw)
	}
	// Reopening continues the numbering.
	d2, err := bundle.Open(d.Path())
	if err != nil {
		t.Fatal(err)
	}
	e, err := d2.Append(bundle.Event{Tool: "git_diff"})
	if err != nil {
		t.Fatal(err)
	}
	if e.Seq != 4 {
		t.Errorf("seq after reopen = %d, want 4", e.Seq)
	}
	evs, err := d2.Events()
	if err != nil || len(evs) != 4 {
		t.Fatalf("Events = %d, %v", len(evs), err)
	}
	for i, e := range evs {
		if e.Seq != i+1 {
			t.Errorf("event %d has seq %d", i, e.Seq)
		}
	}
}

func TestTornLineIgnored(t *testing.T) {
	d, _ := bundle.Create(filepath.Join(t.TempDir(), "b"))
	d.Append(bundle.Event{Tool: "list_files"})
	f, _ := os.OpenFile(d.File(bundle.EventsFile), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"seq":2,"tool":"rea`)
	f.Close()
	evs, err := d.Events()
	if err != nil || len(evs) != 1 {
		t.Errorf("Events = %v, %v; want the one whole line", evs, err)
	}
}

func TestWriteJSONRedactsStringsAndStaysValid(t *testing.T) {
	d, _ := bundle.Create(filepath.Join(t.TempDir(), "b"))
	// An escaped quote next to a secret must not break the JSON.
	v := map[string]any{"log": `password: "x\"` + token, "nested": []any{map[string]string{"api_key": "abc"}}}
	if err := d.WriteJSON(bundle.ResultFile, v); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(d.File(bundle.ResultFile))
	if strings.Contains(string(raw), "ghp_") || strings.Contains(string(raw), `"abc"`) {
		t.Errorf("secret left:\n%s", raw)
	}
	var back map[string]any
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Errorf("result is not JSON: %v\n%s", err, raw)
	}
}

func TestWriteFileAtomicLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := bundle.WriteFileAtomic(p, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := bundle.WriteFileAtomic(p, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "two" {
		t.Errorf("content %q", b)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("directory holds %d entries, want 1 (no temporaries)", len(ents))
	}
	// A failing write leaves the old file.
	if err := bundle.WriteFileAtomic(filepath.Join(dir, "missing", "f"), []byte("x"), 0o600); err == nil {
		t.Error("write into a missing directory succeeded")
	}
}

// Reopening cuts a torn last line, so the next event is a line of its own
// and the log reads whole.
func TestOpenCutsTornLine(t *testing.T) {
	d, _ := bundle.Create(filepath.Join(t.TempDir(), "b"))
	d.Append(bundle.Event{Tool: "list_files"})
	f, _ := os.OpenFile(d.File(bundle.EventsFile), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"seq":2,"tool":"rea`)
	f.Close()
	d2, err := bundle.Open(d.Path())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d2.Append(bundle.Event{Tool: "git_diff"}); err != nil {
		t.Fatal(err)
	}
	evs, err := d2.Events()
	if err != nil || len(evs) != 2 || evs[1].Seq != 2 || evs[1].Tool != "git_diff" {
		t.Errorf("Events = %+v, %v; want list_files then git_diff", evs, err)
	}
	seq, off := d2.EventsEnd()
	raw, _ := os.ReadFile(d.File(bundle.EventsFile))
	if seq != 2 || off != int64(len(raw)) {
		t.Errorf("EventsEnd = %d, %d; want 2, %d", seq, off, len(raw))
	}
}

// A checkpoint reads back as written, redacted, with its digest; the
// events after its offset are the ones appended since.
func TestCheckpointRoundTrip(t *testing.T) {
	d, _ := bundle.Create(filepath.Join(t.TempDir(), "b"))
	if err := d.WriteJSON(bundle.RequestFile, bundle.Request{Task: "t"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.ReadCheckpoint(); err != nil {
		t.Fatal(err)
	}
	d.Append(bundle.Event{Tool: "read_file"})
	run, _ := d.RunID()
	seq, off := d.EventsEnd()
	cp := bundle.Checkpoint{Run: run, Session: "s1", EventSeq: seq, EventOffset: off,
		Reads:            map[string]string{"a.txt": strings.Repeat("ab", 32)},
		PendingApprovals: []bundle.PendingApproval{{Tool: "shell", Command: "curl -H 'Authorization: Bearer " + token + "' x"}}}
	if err := d.WriteCheckpoint(cp); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(d.File(bundle.CheckpointFile))
	if strings.Contains(string(raw), "ghp_") {
		t.Errorf("checkpoint holds a secret:\n%s", raw)
	}
	got, ok, err := d.ReadCheckpoint()
	if err != nil || !ok || got.Reads["a.txt"] != cp.Reads["a.txt"] || got.Session != "s1" || len(got.PendingApprovals) != 1 || got.Digest == "" {
		t.Fatalf("ReadCheckpoint = %+v %v %v", got, ok, err)
	}
	d.Append(bundle.Event{Tool: "git_diff"})
	evs, err := d.EventsAfter(got.EventOffset)
	if err != nil || len(evs) != 1 || evs[0].Tool != "git_diff" {
		t.Errorf("EventsAfter = %+v %v", evs, err)
	}
}

// A checkpoint after an event line far longer than any read buffer (an
// apply_patch of megabytes) reads back.
func TestCheckpointAfterLongEvent(t *testing.T) {
	d, _ := bundle.Create(filepath.Join(t.TempDir(), "b"))
	if err := d.WriteJSON(bundle.RequestFile, bundle.Request{Task: "t"}); err != nil {
		t.Fatal(err)
	}
	d.Append(bundle.Event{Tool: "read_file"})
	args, _ := json.Marshal(map[string]string{"patch": strings.Repeat("+x\n", 7<<20)})
	d.Append(bundle.Event{Tool: "apply_patch", Args: args})
	run, _ := d.RunID()
	seq, off := d.EventsEnd()
	if err := d.WriteCheckpoint(bundle.Checkpoint{Run: run, Session: "s", EventSeq: seq, EventOffset: off}); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := d.ReadCheckpoint(); err != nil || !ok {
		t.Fatalf("ReadCheckpoint = %v %v", ok, err)
	}
	// One byte off is refused.
	if err := d.WriteCheckpoint(bundle.Checkpoint{Run: run, Session: "s", EventSeq: seq, EventOffset: off - 1}); err != nil {
		t.Fatal(err)
	}
	var ce *bundle.CheckpointError
	if _, _, err := d.ReadCheckpoint(); !errors.As(err, &ce) {
		t.Errorf("offset one byte short: %v, want a refusal", err)
	}
}
