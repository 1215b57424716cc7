package bundle_test

import (
	"encoding/json"
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
