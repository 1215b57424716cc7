package bundle

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/rivumi/rivumi/audit"
)

// File names of the bundle; see the package documentation.
const (
	RequestFile      = "request.json"
	EventsFile       = "events.jsonl"
	PatchFile        = "changes.patch"
	VerificationFile = "verification.json"
	TestLogFile      = "test.log"
	ResultFile       = "result.json"
)

// Check is one named verification command.
type Check struct {
	// Name is how a tool call picks it: a non-empty word of letters,
	// digits, '.', '_' and '-'.
	Name string `json:"name"`
	// Argv is run as it is, never through a shell: non-empty, no NUL byte,
	// a non-empty program.
	Argv []string `json:"argv"`
	// Timeout bounds one run (a Go duration such as "2m"; empty means the
	// harness's default).
	Timeout Duration `json:"timeout,omitempty"`
}

// Duration is a time.Duration that encodes as a Go duration string.
type Duration time.Duration

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	if v < 0 {
		return fmt.Errorf("negative duration %s", b)
	}
	*d = Duration(v)
	return nil
}

// Request is request.json.
type Request struct {
	Task string `json:"task"`
	// Commit is the full 40-character SHA the workspace is pinned to.
	Commit string `json:"commit"`
	// Source is the repository the workspace was cloned from.
	Source       string    `json:"source"`
	AllowedPaths []string  `json:"allowed_paths"`
	Checks       []Check   `json:"checks"`
	Created      time.Time `json:"created"`
}

// Event is one line of events.jsonl: one tool call.
type Event struct {
	Seq  int       `json:"seq"`
	Time time.Time `json:"time"`
	Tool string    `json:"tool"`
	// Args are the call's arguments as given (redacted).
	Args json.RawMessage `json:"args,omitempty"`
	// Decision and Rules: the grading of a command (shell, run_check),
	// with the rule ids that decided it.
	Decision string   `json:"decision,omitempty"`
	Rules    []string `json:"rules,omitempty"`
	// Approval is the approver's answer when one was asked.
	Approval string `json:"approval,omitempty"`
	// OK is false when the call was refused or failed.
	OK bool `json:"ok"`
	// Summary says what happened, for humans; Error why it did not.
	Summary string `json:"summary,omitempty"`
	Error   string `json:"error,omitempty"`
	// BytesIn is the size of the arguments, BytesOut of the result.
	BytesIn  int `json:"bytes_in"`
	BytesOut int `json:"bytes_out"`
	// Path and SHA256: the file a read_file or replace_text concerned and
	// the SHA-256 of its bytes as returned (read) or written (replace).
	Path   string `json:"path,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
	// Findings of the secret scan of written content or patches.
	Findings []audit.Finding `json:"findings,omitempty"`
	// Sandbox is the OS sandbox the call's commands ran under (shell,
	// run_check): bwrap, landlock, seatbelt or none.
	Sandbox string `json:"sandbox,omitempty"`
}

// CheckResult is the outcome of one verification command run.
type CheckResult struct {
	Name string `json:"name"`
	// Sandbox is the OS sandbox the check ran under.
	Sandbox  string    `json:"sandbox,omitempty"`
	Argv     []string  `json:"argv"`
	Started  time.Time `json:"started"`
	Duration float64   `json:"duration_ms"`
	// Ran is false when the command was refused or could not start.
	Ran      bool   `json:"ran"`
	ExitCode int    `json:"exit_code"`
	TimedOut bool   `json:"timed_out,omitempty"`
	Passed   bool   `json:"passed"`
	Error    string `json:"error,omitempty"`
	// StdoutBytes and StderrBytes count all the output, kept or not.
	StdoutBytes int64 `json:"stdout_bytes"`
	StderrBytes int64 `json:"stderr_bytes"`
	// TreeBefore and TreeAfter digest the work tree's change before and
	// after the check ran (workspace.TreeDigest); when they differ the
	// check changed the work tree, and the run cannot pass.
	TreeBefore string `json:"tree_before,omitempty"`
	TreeAfter  string `json:"tree_after,omitempty"`
}

// Verification is verification.json: the latest result of each check
// that ran, in the order of the request's checks.
type Verification struct {
	Checks []CheckResult `json:"checks"`
}

// Passed reports whether every check in names has a passing latest result.
func (v Verification) Passed(names []string) bool {
	for _, n := range names {
		ok := false
		for _, c := range v.Checks {
			if c.Name == n && c.Passed {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// Status of a finished run.
const (
	StatusPassed     = "passed"     // every check passed on the final change
	StatusFailed     = "failed"     // a check failed or did not run
	StatusUnverified = "unverified" // no checks are configured
)

// FileFinding is a secret-scan finding in a file of the change.
type FileFinding struct {
	File string `json:"file"`
	audit.Finding
}

// Result is result.json.
type Result struct {
	Status string `json:"status"`
	// Reason is the terminal reason: why the run ended ("finished",
	// "budget exhausted", …).
	Reason   string    `json:"reason"`
	Commit   string    `json:"commit"`
	Finished time.Time `json:"finished"`
	// Artifacts maps what a reader looks for to the bundle file holding it.
	Artifacts map[string]string `json:"artifacts"`
	// ChangedFiles lists the files the patch touches.
	ChangedFiles []string `json:"changed_files"`
	// Findings of the secret scan of changes.patch.
	Findings []FileFinding `json:"findings"`
	// OutsideAllowed lists the paths the final change touches (written,
	// created, deleted, renamed from or to, mode changed) that the
	// request's allowed_paths do not cover; any makes the status failed.
	OutsideAllowed []string `json:"outside_allowed_paths,omitempty"`
	// Problems say why the run cannot pass beyond the checks' own
	// results: a check that changed the work tree, a change made after
	// the checks ran, a .git planted in the work tree, a git directory
	// rivumi refused to use.
	Problems []string `json:"problems,omitempty"`
	// Sandboxes are the OS sandboxes the run's commands ran under (from
	// its events), in the order first used.
	Sandboxes []string `json:"sandboxes,omitempty"`
	// Events is the number of tool calls recorded.
	Events int `json:"events"`
}

// Artifacts is the artifact map of every result.
func Artifacts() map[string]string {
	return map[string]string{
		"request": RequestFile, "events": EventsFile, "patch": PatchFile,
		"verification": VerificationFile, "test_log": TestLogFile, "result": ResultFile,
		"session": SessionFile, "checkpoint": CheckpointFile,
	}
}

// Dir is a bundle directory. Its methods are not safe for concurrent use;
// the workspace serialises them.
type Dir struct {
	path string
	seq  int
	size int64 // of events.jsonl, up to the end of event seq's line
}

// Create makes the bundle directory dir (its parent must exist; dir must
// not).
func Create(dir string) (*Dir, error) {
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	return &Dir{path: dir}, nil
}

// Open opens an existing bundle directory and counts its events. A torn
// last line of events.jsonl (a writer killed mid-write) is cut off, so the
// next event starts on a line of its own.
func Open(dir string) (*Dir, error) {
	d := &Dir{path: dir}
	f, err := os.OpenFile(d.File(EventsFile), os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return d, nil
	}
	if err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	defer f.Close()
	evs, size, err := readEvents(f)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err == nil && fi.Size() > size {
		if err := f.Truncate(size); err != nil {
			return nil, fmt.Errorf("bundle: cut the torn last line of %s: %w", EventsFile, err)
		}
		if err := f.Sync(); err != nil {
			return nil, fmt.Errorf("bundle: %w", err)
		}
	}
	if len(evs) > 0 {
		d.seq = evs[len(evs)-1].Seq
	}
	d.size = size
	return d, nil
}

// Path returns the directory.
func (d *Dir) Path() string { return d.path }

// File returns the path of the bundle file name.
func (d *Dir) File(name string) string { return filepath.Join(d.path, name) }

// WriteJSON writes v as indented JSON to the bundle file name, every
// string redacted, atomically.
func (d *Dir) WriteJSON(name string, v any) error {
	b, err := redactJSON(v)
	if err != nil {
		return fmt.Errorf("bundle: %s: %w", name, err)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, "", "  "); err != nil {
		return fmt.Errorf("bundle: %s: %w", name, err)
	}
	buf.WriteByte('\n')
	return WriteFileAtomic(d.File(name), buf.Bytes(), 0o600)
}

// WriteText writes text to the bundle file name, redacted, atomically.
func (d *Dir) WriteText(name, text string) error {
	return WriteFileAtomic(d.File(name), []byte(audit.Redact(text)), 0o600)
}

// ReadJSON decodes the bundle file name into v.
func (d *Dir) ReadJSON(name string, v any) error {
	b, err := os.ReadFile(d.File(name))
	if err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("bundle: %s: %w", name, err)
	}
	return nil
}

// Append gives e the next sequence number (and the time, if unset),
// redacts it and appends it to events.jsonl as one line with one write,
// then fsyncs. It returns the event as written.
func (d *Dir) Append(e Event) (Event, error) {
	e.Seq = d.seq + 1
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	b, err := redactJSON(e)
	if err != nil {
		return e, fmt.Errorf("bundle: event: %w", err)
	}
	f, err := os.OpenFile(d.File(EventsFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return e, fmt.Errorf("bundle: %w", err)
	}
	n, werr := f.Write(append(b, '\n'))
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		return e, fmt.Errorf("bundle: events: %w", err)
	}
	d.seq = e.Seq
	d.size += int64(n)
	var out Event
	_ = json.Unmarshal(b, &out)
	return out, nil
}

// Events reads events.jsonl (missing: none). A torn last line, left by a
// writer that died mid-write, is ignored.
func (d *Dir) Events() ([]Event, error) {
	f, err := os.Open(d.File(EventsFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	defer f.Close()
	evs, _, err := readEvents(f)
	return evs, err
}

// readEvents decodes event lines up to a torn last line (no newline),
// and returns the size of the complete lines.
func readEvents(r io.Reader) ([]Event, int64, error) {
	var out []Event
	var size int64
	br := bufio.NewReader(r)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if err == io.EOF {
			return out, size, nil // a partial last line (no newline) is torn
		}
		if err != nil {
			return nil, 0, fmt.Errorf("bundle: %w", err)
		}
		var e Event
		if err := json.Unmarshal(b, &e); err != nil {
			return nil, 0, fmt.Errorf("bundle: %s:%d: %w", EventsFile, line, err)
		}
		out = append(out, e)
		size += int64(len(b))
	}
}

// redactJSON marshals v with every string redacted ([audit.RedactJSON]).
func redactJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return audit.RedactJSON(b)
}

// WriteFileAtomic writes data to path through a temporary file in the same
// directory: created with O_EXCL, written, fsync'd, renamed over path,
// then the directory fsync'd. On any failure the temporary file is removed
// and path is untouched.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(dir, "."+filepath.Base(path)+".tmp-"+hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return SyncDir(dir)
}

// SyncDir fsyncs a directory, making a rename in it durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	serr := d.Sync()
	cerr := d.Close()
	if err := errors.Join(serr, cerr); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
