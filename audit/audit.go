package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/rivumi/rivumi/internal/lockedfile"
)

// Kinds of entries written by rivumi. Other writers may use their own.
const (
	KindGrade = "grade" // a command was graded (and, for ask, approved or not)
	KindRun   = "run"   // a command ran (or failed to start)
	KindGrant = "grant" // a grant was added, refused or removed
)

// Entry is one audit record. Zero fields are left out of the JSON line.
// Strings that may carry user data are redacted by [Logger.Log]; callers
// pass them as they are.
type Entry struct {
	Time      time.Time `json:"time"`             // set by Log when zero
	Kind      string    `json:"kind"`             // see KindGrade, KindRun, KindGrant
	Source    string    `json:"source,omitempty"` // who wrote it: "harness", "hook/claude", "serve", …
	RunID     string    `json:"run_id,omitempty"` // ties the grade and run lines of one harness run
	Cwd       string    `json:"cwd,omitempty"`
	Workspace string    `json:"workspace,omitempty"`
	Argv      []string  `json:"argv,omitempty"`
	Command   string    `json:"command,omitempty"` // command text, for callers that grade text

	Decision string   `json:"decision,omitempty"` // allow, ask or deny: the final decision, after approval
	Verdict  string   `json:"verdict,omitempty"`  // the policy's decision, before approval
	Rules    []string `json:"rules,omitempty"`    // rule ids of the verdict's reasons
	Policy   string   `json:"policy,omitempty"`   // policy hash
	Approver string   `json:"approver,omitempty"` // interactive, headless, callback, …
	Answer   string   `json:"answer,omitempty"`   // once, always, deny, timeout, cancelled, error
	Grants   []Grant  `json:"grants,omitempty"`   // grants given to the engine that matched the argv
	Added    []Grant  `json:"added,omitempty"`    // grants added by this decision

	Sandbox string `json:"sandbox,omitempty"`
	// SandboxDetail names what enforced the sandbox (binary, version,
	// digest, the contract it was probed for).
	SandboxDetail    string `json:"sandbox_detail,omitempty"`
	Exit             *int   `json:"exit,omitempty"` // exit status; absent when the process did not exit normally
	Signal           string `json:"signal,omitempty"`
	TimedOut         bool   `json:"timed_out,omitempty"`
	Cancelled        bool   `json:"cancelled,omitempty"`
	KilledAfterGrace bool   `json:"killed_after_grace,omitempty"`
	// Escaped lists processes of the run still alive outside its process
	// group once it was over, and whether they were killed.
	Escaped []Process `json:"escaped,omitempty"`
	// Execs is the exec tree the exec gate decided (rivumi run --gate).
	Execs      []Exec  `json:"execs,omitempty"`
	DurationMS float64 `json:"duration_ms,omitempty"`
	Stdout     *Bytes  `json:"stdout,omitempty"`
	Stderr     *Bytes  `json:"stderr,omitempty"`

	Error string `json:"error,omitempty"`
	Note  string `json:"note,omitempty"`
}

// Grant mirrors verdict.Grant (an argv prefix and the ask rule ids it
// cancels) without importing the engine.
type Grant struct {
	Prefix []string `json:"prefix"`
	Rules  []string `json:"rules"`
}

// Process is a process of a run that outlived it (see Entry.Escaped).
type Process struct {
	PID    int      `json:"pid"`
	Argv   []string `json:"argv,omitempty"`
	Killed bool     `json:"killed"` // false: it could not be stopped and still runs
}

// Exec is one exec the gate decided: the process and its parent (the
// tree: a record whose PID is another's PPID started it), its argv (redacted),
// and the rule that refused it ("" when it ran).
type Exec struct {
	PID     int      `json:"pid"`
	PPID    int      `json:"ppid,omitempty"`
	Argv    []string `json:"argv,omitempty"`
	Allowed bool     `json:"allowed"`
	Rule    string   `json:"rule,omitempty"`
}

// Bytes counts a stream's output: how much was kept in memory and how much
// was dropped between the kept head and tail.
type Bytes struct {
	Total   int64 `json:"total"`
	Kept    int64 `json:"kept"`
	Dropped int64 `json:"dropped"`
}

// Sink receives audit entries. [*Logger] is the file implementation; tests
// and embedders may supply their own. Log must be safe for concurrent use.
type Sink interface {
	Log(ctx context.Context, e Entry) error
}

// Logger appends entries to one file. It is safe for concurrent use by many
// goroutines, and many processes may append to the same file.
type Logger struct {
	path string
	mu   sync.Mutex
	f    *os.File
	now  func() time.Time
	sync bool
	// write appends b to f: (*os.File).Write, or a failing writer in tests.
	write func(f *os.File, b []byte) (int, error)
}

// Option configures a [Logger].
type Option func(*Logger)

// WithoutSync turns off the fsync after each line. Lines stay whole and
// ordered; they are just not durable when Log returns. For tests and
// benchmarks only.
func WithoutSync() Option { return func(l *Logger) { l.sync = false } }

// WithClock sets the clock used to stamp entries whose Time is zero.
func WithClock(now func() time.Time) Option { return func(l *Logger) { l.now = now } }

// Open opens (creating it with mode 0600, and its directory with 0700, if
// needed) the log at path for appending.
func Open(path string, opts ...Option) (*Logger, error) {
	if path == "" {
		return nil, errors.New("audit: empty log path")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("audit: create log directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600) // read: to check for a torn tail
	if err != nil {
		return nil, fmt.Errorf("audit: open log: %w", err)
	}
	l := &Logger{path: path, f: f, now: time.Now, sync: true, write: (*os.File).Write}
	for _, o := range opts {
		o(l)
	}
	return l, nil
}

// Path returns the log's file name.
func (l *Logger) Path() string { return l.path }

// Close closes the log. Log after Close returns an error.
func (l *Logger) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// Log redacts e and appends it as one JSON line: one write(2) under the
// logger's mutex and an exclusive flock(2), followed by fsync. When it
// returns nil the line is whole and durable. When it returns an error the
// line is not in the log: a write or fsync that failed part-way (a full
// disk) is truncated back to the size the log had before, under the same
// lock, and should that fail too, the next writer starts on a fresh line
// (see [Reader] for how torn lines read). Log records even when ctx is
// already cancelled: the trail of a cancelled run matters most. It waits
// for the cross-process lock as long as another writer holds it (writers
// hold it only for one write and one fsync).
func (l *Logger) Log(ctx context.Context, e Entry) error {
	_ = ctx
	if e.Time.IsZero() {
		e.Time = l.now()
	}
	line, err := Marshal(e)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return errors.New("audit: log is closed")
	}
	unlock, err := lockedfile.LockFile(l.f)
	if err != nil {
		return fmt.Errorf("audit: lock log: %w", err)
	}
	defer unlock() //nolint:errcheck // closing the file releases it anyway
	// A writer that died mid-line left a torn line: end it first so ours
	// starts on a line of its own. Still one write.
	size, torn, err := tornTail(l.f)
	if err != nil {
		return fmt.Errorf("audit: check log tail: %w", err)
	} else if torn {
		line = append([]byte{'\n'}, line...)
	}
	n, err := l.write(l.f, line)
	switch {
	case err != nil:
		err = fmt.Errorf("audit: write log: %w", err)
	case n != len(line):
		err = fmt.Errorf("audit: short write (%d of %d bytes)", n, len(line))
	case l.sync:
		if serr := l.f.Sync(); serr != nil {
			err = fmt.Errorf("audit: sync log: %w", serr)
		}
	}
	if err != nil && n > 0 {
		// Whatever part of the line got in goes: the caller is told this
		// entry is not recorded, so the log must not hold it.
		if terr := l.f.Truncate(size); terr != nil {
			err = fmt.Errorf("%w (and truncating back failed: %v)", err, terr)
		}
	}
	return err
}

// Marshal redacts e and encodes it as one JSON line ending in '\n'.
func Marshal(e Entry) ([]byte, error) {
	e = redactEntry(e)
	b, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("audit: encode entry: %w", err)
	}
	return append(b, '\n'), nil
}

func redactEntry(e Entry) Entry {
	e.Cwd = Redact(e.Cwd)
	e.Workspace = Redact(e.Workspace)
	e.Argv = RedactArgv(e.Argv)
	e.Command = Redact(e.Command)
	e.Error = Redact(e.Error)
	e.Note = Redact(e.Note)
	e.Grants = redactGrants(e.Grants)
	e.Added = redactGrants(e.Added)
	if e.Escaped != nil {
		ps := make([]Process, len(e.Escaped))
		for i, p := range e.Escaped {
			ps[i] = Process{PID: p.PID, Argv: RedactArgv(p.Argv), Killed: p.Killed}
		}
		e.Escaped = ps
	}
	return e
}

func redactGrants(gs []Grant) []Grant {
	if gs == nil {
		return nil
	}
	out := make([]Grant, len(gs))
	for i, g := range gs {
		out[i] = Grant{Prefix: RedactArgv(g.Prefix), Rules: g.Rules}
	}
	return out
}

// tornTail returns f's size and whether f is non-empty and does not end in
// a newline.
func tornTail(f *os.File) (int64, bool, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, false, err
	}
	size := fi.Size()
	if size == 0 || !fi.Mode().IsRegular() {
		return size, false, nil
	}
	var b [1]byte
	if _, err := f.ReadAt(b[:], size-1); err != nil {
		return size, false, err
	}
	return size, b[0] != '\n', nil
}

// Discard is a [Sink] that drops every entry.
var Discard Sink = discard{}

type discard struct{}

func (discard) Log(context.Context, Entry) error { return nil }
