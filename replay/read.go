package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/verdict"
)

// Record is one recorded request of a log, ready to be graded again.
type Record struct {
	File    string
	Line    int
	Source  string // "hook/claude", "serve", "harness", "opa", …
	Request verdict.Request
	// Logged is the verdict the log recorded (allow, ask, deny; "" when
	// it recorded none).
	Logged string
}

// Reasons a line is not replayed. Each is a [Skip.Reason].
const (
	ReasonMaskedCommand = "command text redacted ([REDACTED]): the command cannot be known"
	ReasonMaskedArgv    = "argv redacted ([REDACTED]): the command cannot be known"
	ReasonErased        = "request erased by the decision log mask"
	ReasonNoCommand     = "no command text or argv"
	ReasonUnknown       = "unknown format (neither an audit entry nor an OPA decision log)"
	ReasonBadJSON       = "bad JSON"
	ReasonTooLong       = "line too long"
	ReasonBadRequest    = "request not gradable"
	ReasonBadVerdict    = "recorded verdict not allow, ask or deny"
)

// Skip says why a line holding a graded request was not replayed. Detail
// adds the line's own words (the JSON error, the erased paths).
type Skip struct {
	Reason string
	Detail string
}

// MaxLine bounds one log line; a longer line is skipped ([ReasonTooLong]).
const MaxLine = 4 << 20

// Reader reads the recorded requests of one log, line by line.
type Reader struct {
	name string
	br   *bufio.Reader
	line int
	buf  []byte
}

// NewReader returns a reader of the log r, named name in records.
func NewReader(r io.Reader, name string) *Reader {
	return &Reader{name: name, br: bufio.NewReaderSize(r, 64<<10)}
}

// Line is the number of the last line read.
func (r *Reader) Line() int { return r.line }

// Next returns the next recorded request. A line that holds no graded
// request (a run or grant entry, an OPA query of another path, a blank
// line) is passed over; a line that holds one that cannot be replayed is
// returned as a non-nil skip and a zero record. Next returns io.EOF at the
// end; a torn last line (no newline) is ignored, as the audit reader does.
func (r *Reader) Next() (Record, *Skip, error) {
	for {
		line, err := r.readLine()
		if errors.Is(err, errTooLong) {
			return Record{}, &Skip{Reason: ReasonTooLong, Detail: fmt.Sprintf("over %d bytes", MaxLine)}, nil
		}
		if err != nil {
			return Record{}, nil, err
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		rec, skip, ok := parseLine(line)
		if !ok {
			continue
		}
		rec.File, rec.Line = r.name, r.line
		return rec, skip, nil
	}
}

var errTooLong = errors.New("line too long")

// readLine returns the next complete line; its bytes are valid until the
// next call.
func (r *Reader) readLine() ([]byte, error) {
	line, err := r.br.ReadSlice('\n')
	r.line++
	if err == bufio.ErrBufferFull {
		r.buf = append(r.buf[:0], line...)
		for err == bufio.ErrBufferFull && len(r.buf) <= MaxLine {
			line, err = r.br.ReadSlice('\n')
			r.buf = append(r.buf, line...)
		}
		if len(r.buf) > MaxLine {
			for err == bufio.ErrBufferFull {
				_, err = r.br.ReadSlice('\n')
			}
			if err != nil && err != io.EOF {
				return nil, err
			}
			if cap(r.buf) > 1<<20 {
				r.buf = nil // do not keep a huge buffer for the rest of the log
			}
			return nil, errTooLong
		}
		line = r.buf
	}
	if err == io.EOF {
		if len(line) == 0 {
			r.line-- // no line at all
		}
		return nil, io.EOF // a torn or empty last line
	}
	return line, err
}

// logLine holds the fields of both log shapes.
type logLine struct {
	// rivumi's audit log (audit.Entry)
	Kind      string        `json:"kind"`
	Source    string        `json:"source"`
	Command   *string       `json:"command"`
	Argv      []string      `json:"argv"`
	Cwd       string        `json:"cwd"`
	Workspace string        `json:"workspace"`
	Verdict   string        `json:"verdict"`
	Grants    []audit.Grant `json:"grants"`
	// OPA's decision log
	DecisionID string          `json:"decision_id"`
	Path       string          `json:"path"`
	Input      json.RawMessage `json:"input"`
	Result     json.RawMessage `json:"result"`
	Erased     []string        `json:"erased"`
	Masked     []string        `json:"masked"`
}

// parseLine reads one line; ok is false for lines that hold no graded
// request.
func parseLine(line []byte) (Record, *Skip, bool) {
	var l logLine
	if err := json.Unmarshal(line, &l); err != nil {
		return Record{}, &Skip{Reason: ReasonBadJSON, Detail: err.Error()}, true
	}
	switch {
	case l.DecisionID != "":
		return opaRecord(l)
	case l.Kind == audit.KindGrade:
		return auditRecord(l)
	case l.Kind != "":
		return Record{}, nil, false // a run or grant entry
	}
	return Record{}, &Skip{Reason: ReasonUnknown}, true
}

func auditRecord(l logLine) (Record, *Skip, bool) {
	if l.Verdict != "" && !validDecision(l.Verdict) {
		return Record{}, &Skip{Reason: ReasonBadVerdict, Detail: fmt.Sprintf("%q", l.Verdict)}, true
	}
	rec := Record{Source: l.Source, Logged: l.Verdict}
	rec.Request = verdict.Request{Command: l.Command, Argv: l.Argv, Cwd: l.Cwd, Workspace: l.Workspace}
	if rec.Request.Command != nil && len(rec.Request.Argv) > 0 {
		// The hooks log both for an argv call; the argv is what ran.
		rec.Request.Command = nil
	}
	for _, g := range l.Grants {
		rec.Request.Grants = append(rec.Request.Grants, verdict.Grant{Prefix: g.Prefix, Rules: g.Rules})
	}
	if skip := checkRequest(&rec.Request); skip != nil {
		return Record{}, skip, true
	}
	return rec, nil, true
}

// opaRequest is the entrypoint's input: serve's request, no other key.
type opaRequest struct {
	Command   *string         `json:"command"`
	Argv      []string        `json:"argv"`
	Cwd       string          `json:"cwd"`
	Workspace string          `json:"workspace"`
	Home      string          `json:"home"`
	Shell     string          `json:"shell"`
	Grants    []verdict.Grant `json:"grants"`
}

func opaRecord(l logLine) (Record, *Skip, bool) {
	path := strings.Trim(l.Path, "/")
	if path != "rivumi/entry/verdict" && path != "rivumi/entry/decision" {
		return Record{}, nil, false
	}
	for _, p := range slices.Concat(l.Erased, l.Masked) {
		if p == "/input" || p == "/input/command" || p == "/input/argv" || strings.HasPrefix(p, "/input/argv/") {
			return Record{}, &Skip{Reason: ReasonErased, Detail: strings.Join(slices.Concat(l.Erased, l.Masked), ", ")}, true
		}
	}
	if len(l.Input) == 0 || string(l.Input) == "null" {
		return Record{}, &Skip{Reason: ReasonNoCommand, Detail: "no input"}, true
	}
	var in opaRequest
	dec := json.NewDecoder(bytes.NewReader(l.Input))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return Record{}, &Skip{Reason: ReasonBadRequest, Detail: "input: " + err.Error()}, true
	}
	rec := Record{Source: "opa", Logged: opaVerdict(l.Result)}
	rec.Request = verdict.Request{Command: in.Command, Argv: in.Argv, Cwd: in.Cwd, Workspace: in.Workspace,
		Home: in.Home, Shell: in.Shell, Grants: in.Grants}
	if skip := checkRequest(&rec.Request); skip != nil {
		return Record{}, skip, true
	}
	return rec, nil, true
}

// opaVerdict is the decision of an OPA result ("" when there is none).
func opaVerdict(res json.RawMessage) string {
	var d string
	if json.Unmarshal(res, &d) == nil && validDecision(d) {
		return d
	}
	var v struct {
		Decision string `json:"decision"`
	}
	if json.Unmarshal(res, &v) == nil && validDecision(v.Decision) {
		return v.Decision
	}
	return ""
}

// checkRequest refuses a request whose command was masked or is missing:
// replay never grades a guess.
func checkRequest(r *verdict.Request) *Skip {
	switch {
	case r.Command != nil && strings.Contains(*r.Command, audit.Redacted):
		return &Skip{Reason: ReasonMaskedCommand}
	case r.Command == nil && len(r.Argv) == 0 || r.Command != nil && strings.TrimSpace(*r.Command) == "" && len(r.Argv) == 0:
		return &Skip{Reason: ReasonNoCommand}
	}
	for _, a := range r.Argv {
		if strings.Contains(a, audit.Redacted) {
			return &Skip{Reason: ReasonMaskedArgv}
		}
	}
	return nil
}

func validDecision(d string) bool { return d == "allow" || d == "ask" || d == "deny" }
