package bundle

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rivumi/rivumi/internal/strictjson"
)

// File names of the session record and the checkpoint.
const (
	SessionFile    = "session.json"
	CheckpointFile = "checkpoint.json"
)

// CheckpointFormat is the format version of checkpoint.json this package
// writes and the only one it reads.
const CheckpointFormat = 1

// Sessions is session.json: every process that served the run's tools
// (an MCP server, one or more `rivumi workspace tool` calls), in the
// order they started.
type Sessions struct {
	Sessions []Session `json:"sessions"`
}

// Session is one process that served the run's tools.
type Session struct {
	// ID is random, unique to the process.
	ID string `json:"id"`
	// Kind is what served the tools: "mcp", "cli" or "api".
	Kind string `json:"kind"`
	PID  int    `json:"pid"`
	// Clients are the MCP clients that called tools (name and version as
	// they announced themselves).
	Clients []Client  `json:"clients,omitempty"`
	Started time.Time `json:"started"`
	// Updated is the time of the last change recorded.
	Updated time.Time `json:"updated"`
	// Ended is set when the process closed the tools; a session without
	// it is still running, or was killed (then Interrupted is set by the
	// next session).
	Ended       *time.Time `json:"ended,omitempty"`
	Interrupted bool       `json:"interrupted,omitempty"`
	// ResumedFrom is the session whose checkpoint this one resumed from.
	ResumedFrom string `json:"resumed_from,omitempty"`
	// StaleReads are the read versions the checkpoint held that the files
	// on disk no longer match (or that are gone): dropped on resume, so
	// those files must be read again before replace_text.
	StaleReads []string `json:"stale_reads,omitempty"`
	// Tools counts the calls by tool name.
	Tools map[string]int `json:"tools"`
	// Approvals are the questions put to a person, with the answers.
	Approvals []Approval `json:"approvals,omitempty"`
	// Grants are the grants an "always" answer recorded.
	Grants []Grant `json:"grants,omitempty"`
	// Sandbox is the OS sandbox the session's commands ran under
	// ("landlock+gate:deny", "bwrap", "none", …); Network whether they
	// could use the network.
	Sandbox string `json:"sandbox"`
	Network bool   `json:"network,omitempty"`
}

// Client is an MCP client as it named itself in the initialize request.
type Client struct {
	Name     string `json:"name"`
	Version  string `json:"version,omitempty"`
	Protocol string `json:"protocol,omitempty"`
}

// Approval is one question put to a person and its answer ("once",
// "always", "deny", "timeout", "interrupted", "error: …").
type Approval struct {
	Time    time.Time `json:"time"`
	Tool    string    `json:"tool"`
	Command string    `json:"command"`
	Rules   []string  `json:"rules,omitempty"`
	Answer  string    `json:"answer"`
}

// Grant is a grant an approval recorded: an argv prefix and the ask rules
// it cancels.
type Grant struct {
	Prefix []string `json:"prefix"`
	Rules  []string `json:"rules"`
}

// Checkpoint is checkpoint.json: what a later process needs to resume the
// run's session. It is written atomically after each state change.
type Checkpoint struct {
	// Format is [CheckpointFormat].
	Format int `json:"format"`
	// Run identifies the run: the SHA-256 of its request.json
	// ([Dir.RunID]). A checkpoint of another run is refused.
	Run string `json:"run"`
	// Session is the ID of the session that wrote it.
	Session string    `json:"session"`
	Written time.Time `json:"written"`
	// EventSeq is the seq of the last event in events.jsonl when it was
	// written, and EventOffset the size of events.jsonl up to the end of
	// that event's line: the events after it are replayed on resume.
	EventSeq    int   `json:"event_seq"`
	EventOffset int64 `json:"event_offset"`
	// Reads maps a workspace path to the SHA-256 of its bytes as last read
	// or written by a tool: the read versions replace_text needs.
	Reads map[string]string `json:"reads"`
	// PendingApprovals are the approvals asked and not yet answered.
	PendingApprovals []PendingApproval `json:"pending_approvals"`
	// InFlight is the call that may change the work tree (or runs a
	// check) under way when the checkpoint was written: none between
	// calls.
	InFlight *InFlight `json:"in_flight,omitempty"`
	// Digest is the SHA-256 of the checkpoint's JSON encoding with Digest
	// empty: a checkpoint changed after it was written is refused.
	Digest string `json:"digest"`
}

// PendingApproval is an approval asked and not yet answered: the call
// that asked it has not run its command.
type PendingApproval struct {
	Tool    string    `json:"tool"`
	Command string    `json:"command"`
	Dir     string    `json:"dir,omitempty"`
	Rules   []string  `json:"rules,omitempty"`
	Asked   time.Time `json:"asked"`
}

// InFlight is a call under way.
type InFlight struct {
	Tool    string          `json:"tool"`
	Args    json.RawMessage `json:"args,omitempty"`
	Started time.Time       `json:"started"`
}

// CheckpointError is [Dir.ReadCheckpoint]'s refusal of a corrupt or
// foreign checkpoint.
type CheckpointError struct {
	Path   string
	Reason string
}

func (e *CheckpointError) Error() string {
	return fmt.Sprintf("bundle: %s: %s: refusing to resume from it (move it away to resume from events.jsonl alone; every read version is checked against the files then too)", e.Path, e.Reason)
}

// RunID returns the run's identity: the hex SHA-256 of request.json's
// bytes.
func (d *Dir) RunID() (string, error) {
	b, err := os.ReadFile(d.File(RequestFile))
	if err != nil {
		return "", fmt.Errorf("bundle: %w", err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:]), nil
}

// EventsEnd returns the seq of the last event appended or read and the
// size of events.jsonl up to the end of its line.
func (d *Dir) EventsEnd() (seq int, offset int64) { return d.seq, d.size }

// WriteCheckpoint writes c as checkpoint.json atomically (a temporary file
// in the bundle directory, fsync, rename, fsync of the directory), with
// Format and Written set, every string redacted, and Digest computed over
// the redacted content.
func (d *Dir) WriteCheckpoint(c Checkpoint) error {
	c.Format = CheckpointFormat
	if c.Written.IsZero() {
		c.Written = time.Now().UTC()
	}
	if c.Reads == nil {
		c.Reads = map[string]string{}
	}
	if c.PendingApprovals == nil {
		c.PendingApprovals = []PendingApproval{}
	}
	c.Digest = ""
	b, err := redactJSON(c)
	if err != nil {
		return fmt.Errorf("bundle: checkpoint: %w", err)
	}
	var red Checkpoint
	if err := json.Unmarshal(b, &red); err != nil {
		return fmt.Errorf("bundle: checkpoint: %w", err)
	}
	if red.Digest, err = checkpointDigest(red); err != nil {
		return fmt.Errorf("bundle: checkpoint: %w", err)
	}
	out, err := json.MarshalIndent(red, "", "  ")
	if err != nil {
		return fmt.Errorf("bundle: checkpoint: %w", err)
	}
	return WriteFileAtomic(d.File(CheckpointFile), append(out, '\n'), 0o600)
}

func checkpointDigest(c Checkpoint) (string, error) {
	c.Digest = ""
	b, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:]), nil
}

// ReadCheckpoint reads checkpoint.json; ok is false when there is none.
// It refuses (a [*CheckpointError]) a checkpoint that does not decode
// strictly, has another format, a digest that does not match its content,
// belongs to another run ([Dir.RunID]), or names an event that
// events.jsonl does not hold at the offset it gives.
func (d *Dir) ReadCheckpoint() (c Checkpoint, ok bool, err error) {
	path := d.File(CheckpointFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, false, nil
	}
	if err != nil {
		return c, false, fmt.Errorf("bundle: %w", err)
	}
	refuse := func(format string, args ...any) (Checkpoint, bool, error) {
		return Checkpoint{}, false, &CheckpointError{Path: path, Reason: fmt.Sprintf(format, args...)}
	}
	if err := strictjson.Decode(b, &c); err != nil {
		return refuse("corrupt: %v", err)
	}
	if c.Format != CheckpointFormat {
		return refuse("format %d, want %d", c.Format, CheckpointFormat)
	}
	if want, err := checkpointDigest(c); err != nil || want != c.Digest {
		return refuse("corrupt: its digest does not match its content")
	}
	run, err := d.RunID()
	if err != nil {
		return c, false, err
	}
	if c.Run != run {
		return refuse("written for another run (run %.12s, this run is %.12s)", c.Run, run)
	}
	if c.EventSeq < 0 || c.EventOffset < 0 || (c.EventSeq == 0) != (c.EventOffset == 0) {
		return refuse("corrupt: event %d at offset %d", c.EventSeq, c.EventOffset)
	}
	if c.EventSeq > 0 {
		e, err := d.eventEndingAt(c.EventOffset)
		if err != nil || e.Seq != c.EventSeq {
			return refuse("events.jsonl does not hold event %d ending at offset %d (it was replaced or cut)", c.EventSeq, c.EventOffset)
		}
	}
	return c, true, nil
}

// eventEndingAt decodes the line of events.jsonl that ends at offset
// (its newline the byte before offset), however long.
func (d *Dir) eventEndingAt(offset int64) (Event, error) {
	f, err := os.Open(d.File(EventsFile))
	if err != nil {
		return Event{}, err
	}
	defer f.Close()
	var last [1]byte
	if _, err := f.ReadAt(last[:], offset-1); err != nil || last[0] != '\n' {
		return Event{}, errors.New("no line ends there")
	}
	// Back from the newline to the one before it (or the file's start).
	start := int64(0)
	buf := make([]byte, 64<<10)
	for end := offset - 1; end > 0; {
		n := min(int64(len(buf)), end)
		if _, err := f.ReadAt(buf[:n], end-n); err != nil {
			return Event{}, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			start = end - n + int64(i) + 1
			break
		}
		end -= n
	}
	line := make([]byte, offset-1-start)
	if _, err := f.ReadAt(line, start); err != nil {
		return Event{}, err
	}
	var e Event
	err = json.Unmarshal(line, &e)
	return e, err
}

// EventsAfter returns the events of events.jsonl after offset (a line
// boundary, as a checkpoint's EventOffset); a torn last line is ignored.
func (d *Dir) EventsAfter(offset int64) ([]Event, error) {
	f, err := os.Open(d.File(EventsFile))
	if errors.Is(err, os.ErrNotExist) && offset == 0 {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	defer f.Close()
	evs, _, err := readEvents(io.NewSectionReader(f, offset, 1<<62))
	return evs, err
}

// ReadSessions reads session.json (missing: no sessions).
func (d *Dir) ReadSessions() (Sessions, error) {
	var s Sessions
	b, err := os.ReadFile(d.File(SessionFile))
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("bundle: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("bundle: %s: %w", SessionFile, err)
	}
	return s, nil
}

// WriteSessions writes session.json atomically, redacted.
func (d *Dir) WriteSessions(s Sessions) error {
	if s.Sessions == nil {
		s.Sessions = []Session{}
	}
	return d.WriteJSON(SessionFile, s)
}
