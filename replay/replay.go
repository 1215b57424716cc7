package replay

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/rivumi/rivumi/audit"
	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/verdict"
)

// Grader grades one request. A grader returns an error for a request it
// cannot grade (see [engine.Engine.Grade]).
type Grader func(ctx context.Context, r *verdict.Request) (verdict.Verdict, error)

// EngineGrader grades with e exactly as `rivumi serve` does.
func EngineGrader(e *engine.Engine) Grader {
	return func(ctx context.Context, r *verdict.Request) (verdict.Verdict, error) { return e.Grade(ctx, *r) }
}

// Log is one decision log to replay.
type Log struct {
	Name string
	R    io.Reader
}

// Options tune [Replay]. The zero value is usable.
type Options struct {
	// Samples is how many distinct commands each change class and each
	// reason a line was skipped keeps (default 5).
	Samples int
	// Defaults fills the fields a record leaves empty (home, shell, cwd,
	// workspace), as serve's defaults do; its Grants are added to every
	// record's (the project's standing grants).
	Defaults verdict.Request
	// Progress, when set, is called about once a second with the lines
	// read so far and the elapsed time.
	Progress func(lines int, elapsed time.Duration)
	// Now is the clock for Progress (default time.Now).
	Now func() time.Time
	// Title returns a rule id's title (the policies' rule metadata) for
	// [RuleDelta.Title]; nil leaves titles out.
	Title func(id string) string
}

// Summary is what a replay found. Memory is bounded: counts, and at most
// Options.Samples commands per class.
type Summary struct {
	Current   string `json:"current_policy"`   // policy hash of the current verdicts
	Candidate string `json:"candidate_policy"` // policy hash of the candidate's
	Lines     int    `json:"lines"`            // lines read
	Replayed  int    `json:"replayed"`         // requests graded with both policies
	Unchanged int    `json:"unchanged"`
	Changed   int    `json:"changed"` // verdict or rule ids differ
	// Drift counts replayed requests whose current verdict differs from
	// the one the log recorded (the policy in force changed since).
	Drift int `json:"drift"`
	// Changes are the change classes, those that became allow first, then
	// those that loosened, then by count.
	Changes []Change `json:"changes"`
	// Rules counts, per rule id, the changed requests it newly fires on
	// (Gained) and no longer fires on (Lost).
	Rules []RuleDelta `json:"rules"`
	// Skipped are the lines holding a request that were not replayed, by
	// reason.
	Skipped []Skipped     `json:"skipped"`
	Elapsed time.Duration `json:"elapsed_ns"`
}

// Change is one class of changed verdicts: From → To (the same decision
// when only the rule ids changed).
type Change struct {
	From     string    `json:"from"`
	To       string    `json:"to"`
	Count    int       `json:"count"`
	Examples []Example `json:"examples"`
}

// BecameAllow reports whether the change lets through what the current
// policy stops or asks about.
func (c Change) BecameAllow() bool { return c.To == "allow" && c.From != "allow" }

// Loosens reports whether the candidate is more lenient than the current
// policy in this change.
func (c Change) Loosens() bool { return rank(c.To) < rank(c.From) }

// Example is one command behind a change, redacted, with how often it
// came up and where first.
type Example struct {
	Command string   `json:"command"` // redacted ([audit.Redact])
	Count   int      `json:"count"`
	Source  string   `json:"source,omitempty"`
	File    string   `json:"file"`
	Line    int      `json:"line"`
	Before  []string `json:"before"` // current rule ids
	After   []string `json:"after"`  // candidate rule ids
}

// RuleDelta counts one rule's part in the changes.
type RuleDelta struct {
	Rule   string `json:"rule"`
	Title  string `json:"title,omitempty"` // from Options.Title
	Gained int    `json:"gained"`
	Lost   int    `json:"lost"`
}

// Skipped counts the lines skipped for one reason, with the first few.
type Skipped struct {
	Reason string      `json:"reason"`
	Count  int         `json:"count"`
	Lines  []SkipPlace `json:"lines"`
}

// SkipPlace is one skipped line.
type SkipPlace struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Detail string `json:"detail,omitempty"`
}

// FailOn names what makes a replay fail in CI.
type FailOn string

// The exit policies of [Summary.Fails].
const (
	FailNever         FailOn = "none"
	FailAllowIncrease FailOn = "allow-increase" // something the current policy asks about or denies becomes allow
	FailLoosen        FailOn = "loosen"         // any verdict becomes more lenient
	FailAnyChange     FailOn = "any-change"     // any verdict or rule id changes
)

// ParseFailOn checks a --fail-on value.
func ParseFailOn(s string) (FailOn, error) {
	switch f := FailOn(s); f {
	case FailNever, FailAllowIncrease, FailLoosen, FailAnyChange:
		return f, nil
	}
	return "", fmt.Errorf("unknown fail-on %q (want none, allow-increase, loosen or any-change)", s)
}

// Fails reports whether the summary holds a change that on refuses.
func (s *Summary) Fails(on FailOn) bool {
	for _, c := range s.Changes {
		switch {
		case on == FailAnyChange,
			on == FailLoosen && c.Loosens(),
			on == FailAllowIncrease && c.BecameAllow():
			return true
		}
	}
	return false
}

// BecameAllow counts the requests the candidate allows and the current
// policy does not.
func (s *Summary) BecameAllow() int {
	n := 0
	for _, c := range s.Changes {
		if c.BecameAllow() {
			n += c.Count
		}
	}
	return n
}

// SkippedCount is the number of lines not replayed.
func (s *Summary) SkippedCount() int {
	n := 0
	for _, k := range s.Skipped {
		n += k.Count
	}
	return n
}

func rank(d string) int {
	switch d {
	case "allow":
		return 0
	case "ask":
		return 1
	}
	return 2
}

type classKey struct{ from, to string }

type class struct {
	count    int
	examples []Example
}

// Replay grades every request of logs with current and candidate and
// summarises the differences. It stops at the first read error (not at a
// bad line: those are skipped and counted) or when ctx ends.
func Replay(ctx context.Context, logs []Log, current, candidate Grader, o Options) (*Summary, error) {
	if o.Samples <= 0 {
		o.Samples = 5
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	start := o.Now()
	next := start.Add(time.Second)
	s := &Summary{}
	classes := map[classKey]*class{}
	rules := map[string]*RuleDelta{}
	skipped := map[string]*Skipped{}
	skip := func(file string, line int, k *Skip) {
		sk := skipped[k.Reason]
		if sk == nil {
			sk = &Skipped{Reason: k.Reason}
			skipped[k.Reason] = sk
		}
		sk.Count++
		if len(sk.Lines) < o.Samples {
			sk.Lines = append(sk.Lines, SkipPlace{File: file, Line: line, Detail: k.Detail})
		}
	}
	base := 0 // lines of the logs before this one
	for _, lg := range logs {
		r := NewReader(lg.R, lg.Name)
		for {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			rec, k, err := r.Next()
			s.Lines = base + r.Line()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", lg.Name, r.Line(), err)
			}
			if o.Progress != nil {
				if now := o.Now(); now.After(next) {
					o.Progress(s.Lines, now.Sub(start))
					next = now.Add(time.Second)
				}
			}
			if k != nil {
				skip(lg.Name, r.Line(), k)
				continue
			}
			fill(&rec.Request, &o.Defaults)
			before, err := current(ctx, &rec.Request)
			if err == nil {
				var after verdict.Verdict
				after, err = candidate(ctx, &rec.Request)
				if err == nil {
					s.Current, s.Candidate = before.Policy, after.Policy
					s.add(rec, before, after, classes, rules, o.Samples)
					continue
				}
			}
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			skip(lg.Name, r.Line(), &Skip{Reason: ReasonBadRequest, Detail: err.Error()})
		}
		base = s.Lines
	}
	s.Elapsed = o.Now().Sub(start)
	for k, c := range classes {
		s.Changes = append(s.Changes, Change{From: k.from, To: k.to, Count: c.count, Examples: c.examples})
	}
	slices.SortFunc(s.Changes, func(a, b Change) int {
		return cmp.Or(-cmpBool(a.BecameAllow(), b.BecameAllow()), -cmpBool(a.Loosens(), b.Loosens()),
			b.Count-a.Count, cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To))
	})
	for _, d := range rules {
		if o.Title != nil {
			d.Title = o.Title(d.Rule)
		}
		s.Rules = append(s.Rules, *d)
	}
	slices.SortFunc(s.Rules, func(a, b RuleDelta) int {
		return cmp.Or((b.Gained+b.Lost)-(a.Gained+a.Lost), cmp.Compare(a.Rule, b.Rule))
	})
	for _, k := range skipped {
		s.Skipped = append(s.Skipped, *k)
	}
	slices.SortFunc(s.Skipped, func(a, b Skipped) int { return cmp.Or(b.Count-a.Count, cmp.Compare(a.Reason, b.Reason)) })
	return s, nil
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// fill sets what r leaves empty from d, as serve's defaults do.
func fill(r *verdict.Request, d *verdict.Request) {
	for _, f := range []struct {
		dst *string
		def string
	}{
		{&r.Cwd, d.Cwd}, {&r.Home, d.Home}, {&r.Shell, d.Shell},
	} {
		if *f.dst == "" {
			*f.dst = f.def
		}
	}
	if r.Workspace == "" {
		if r.Cwd != "" && r.Cwd != d.Cwd {
			r.Workspace = r.Cwd
		} else {
			r.Workspace = d.Workspace
		}
	}
	if len(d.Grants) > 0 {
		r.Grants = append(slices.Clip(r.Grants), d.Grants...)
	}
}

// add counts one replayed request.
func (s *Summary) add(rec Record, before, after verdict.Verdict, classes map[classKey]*class, rules map[string]*RuleDelta, samples int) {
	s.Replayed++
	if rec.Logged != "" && rec.Logged != before.Decision.String() {
		s.Drift++
	}
	b, a := ruleIDs(before), ruleIDs(after)
	if before.Decision == after.Decision && slices.Equal(b, a) {
		s.Unchanged++
		return
	}
	s.Changed++
	key := classKey{before.Decision.String(), after.Decision.String()}
	c := classes[key]
	if c == nil {
		c = &class{}
		classes[key] = c
	}
	c.count++
	cmd := commandText(&rec.Request)
	if i := slices.IndexFunc(c.examples, func(e Example) bool { return e.Command == cmd }); i >= 0 {
		c.examples[i].Count++
	} else if len(c.examples) < samples {
		c.examples = append(c.examples, Example{Command: cmd, Count: 1, Source: rec.Source, File: rec.File,
			Line: rec.Line, Before: b, After: a})
	}
	for _, id := range a {
		if !slices.Contains(b, id) {
			ruleDelta(rules, id).Gained++
		}
	}
	for _, id := range b {
		if !slices.Contains(a, id) {
			ruleDelta(rules, id).Lost++
		}
	}
}

func ruleDelta(m map[string]*RuleDelta, id string) *RuleDelta {
	d := m[id]
	if d == nil {
		d = &RuleDelta{Rule: id}
		m[id] = d
	}
	return d
}

// ruleIDs are the distinct rule ids of v's reasons, sorted.
func ruleIDs(v verdict.Verdict) []string {
	ids := make([]string, 0, len(v.Reasons))
	for _, r := range v.Reasons {
		ids = append(ids, r.Rule)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// commandText is the request's command, redacted for a report.
func commandText(r *verdict.Request) string {
	if r.Command != nil {
		return audit.Redact(*r.Command)
	}
	return strings.Join(audit.RedactArgv(r.Argv), " ")
}
