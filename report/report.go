// Package report summarises decision logs: what rivumi decided, and in
// shadow mode what it would have decided. It reads rivumi's audit log
// (JSON Lines written by the hooks, `rivumi serve` and `rivumi run`) and the
// decision logs OPA writes for rivumi-opa's entrypoint, and counts asks and
// denies by rule (with the rule's title and its most frequent commands),
// the verdicts by source, the most frequent uncovered commands (with the
// rule to paste, from the caller's policy), decisions over time, and the
// exec gate's runs. [WriteText] renders a summary for a terminal,
// [WriteHTML] as one self-contained page with inline SVG charts.
package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// Event is one graded command from a log.
type Event struct {
	Time    time.Time
	Source  string // "hook/claude-code", "serve", "harness", "opa", …
	Command string // as logged (secrets redacted by the writer)
	// Verdict is the policy's decision: allow, ask or deny.
	Verdict string
	// Enforced is what was answered (after approval or --ask-as); empty
	// in shadow mode, where nothing was (a hook's --ask-as pass leaves an
	// ask unanswered too, and counts as shadow).
	Enforced string
	Rules    []string // the verdict's rule ids
	Policy   string
	// Execs is the exec tree of a gated run (a "run" entry of `rivumi run
	// --gate` or the workspace tools). Such an event is a run, not a graded
	// command: [Summarize] counts it only in Summary.Gate.
	Execs []Exec
}

// Shadow reports whether the event was graded without being enforced.
func (e Event) Shadow() bool { return e.Enforced == "" }

// logLine holds the fields of both log shapes.
type logLine struct {
	// rivumi's audit log (audit.Entry)
	Kind     string    `json:"kind"`
	Time     time.Time `json:"time"`
	Source   string    `json:"source"`
	Command  string    `json:"command"`
	Argv     []string  `json:"argv"`
	Decision string    `json:"decision"`
	Verdict  string    `json:"verdict"`
	Rules    []string  `json:"rules"`
	Policy   string    `json:"policy"`
	Answer   string    `json:"answer"`
	Execs    []Exec    `json:"execs"`
	// OPA's decision log
	DecisionID string          `json:"decision_id"`
	Timestamp  time.Time       `json:"timestamp"`
	Path       string          `json:"path"`
	Input      json.RawMessage `json:"input"`
	Result     json.RawMessage `json:"result"`
}

// Problem is a log line that could not be read.
type Problem struct {
	File string
	Line int
	Err  string
}

func (p Problem) String() string { return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Err) }

// maxLine bounds one log line; longer lines are problems, not events.
const maxLine = 4 << 20

// Read reads the graded commands of one log. Lines of other kinds (runs,
// grants, OPA's queries of other paths) are skipped; lines that do not
// decode are returned as problems, and a torn last line (no newline) is
// ignored as the audit reader does.
func Read(r io.Reader, name string) ([]Event, []Problem, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var events []Event
	var problems []Problem
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A long line: gather it, within maxLine.
			buf := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull && len(buf) <= maxLine {
				line, err = br.ReadSlice('\n')
				buf = append(buf, line...)
			}
			if len(buf) > maxLine {
				problems = append(problems, Problem{name, n, fmt.Sprintf("line longer than %d bytes", maxLine)})
				for err == bufio.ErrBufferFull {
					_, err = br.ReadSlice('\n')
				}
				if err == io.EOF {
					return events, problems, nil
				}
				if err != nil {
					return events, problems, err
				}
				continue
			}
			line = buf
		}
		if err == io.EOF {
			return events, problems, nil // a torn or empty last line
		}
		if err != nil {
			return events, problems, err
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		ev, ok, perr := parseLine(line)
		if perr != nil {
			problems = append(problems, Problem{name, n, perr.Error()})
			continue
		}
		if ok {
			events = append(events, ev)
		}
	}
}

// probeSource prefixes the source of the calls `rivumi hook doctor` makes
// through an installed entry (hook.ProbeSource): they are not counted.
const probeSource = "doctor/"

// parseLine turns one line into an event; ok is false for lines that hold
// no graded command (and for doctor's probes).
func parseLine(line []byte) (Event, bool, error) {
	var l logLine
	if err := json.Unmarshal(line, &l); err != nil {
		return Event{}, false, err
	}
	if l.DecisionID != "" {
		return opaEvent(l)
	}
	if l.Kind == "run" && len(l.Execs) > 0 {
		e := Event{Time: l.Time, Source: l.Source, Command: l.Command, Execs: l.Execs}
		if e.Command == "" {
			e.Command = strings.Join(l.Argv, " ")
		}
		return e, true, nil
	}
	if l.Kind != "grade" {
		return Event{}, false, nil
	}
	if strings.HasPrefix(l.Source, probeSource) {
		return Event{}, false, nil // rivumi hook doctor's own calls, no agent's
	}
	if !validDecision(l.Verdict) {
		return Event{}, false, fmt.Errorf("verdict %q: want allow, ask or deny", l.Verdict)
	}
	e := Event{Time: l.Time, Source: l.Source, Command: l.Command, Verdict: l.Verdict, Rules: l.Rules, Policy: l.Policy}
	if e.Command == "" && len(l.Argv) > 0 {
		e.Command = strings.Join(l.Argv, " ")
	}
	// The hooks log an unanswered call (shadow mode, --ask-as pass) with
	// no decision and answer "none".
	if validDecision(l.Decision) {
		e.Enforced = l.Decision
	}
	return e, true, nil
}

// opaEvent reads an OPA decision log line of rivumi's entrypoint
// (rivumi/entry/verdict or rivumi/entry/decision).
func opaEvent(l logLine) (Event, bool, error) {
	path := strings.Trim(l.Path, "/")
	if path != "rivumi/entry/verdict" && path != "rivumi/entry/decision" {
		return Event{}, false, nil
	}
	var in struct {
		Command string   `json:"command"`
		Argv    []string `json:"argv"`
	}
	_ = json.Unmarshal(l.Input, &in) // a masked or odd input still counts
	e := Event{Time: l.Timestamp, Source: "opa", Command: in.Command}
	if e.Command == "" && len(in.Argv) > 0 {
		e.Command = strings.Join(in.Argv, " ")
	}
	var v struct {
		Decision string `json:"decision"`
		Policy   string `json:"policy"`
		Reasons  []struct {
			Rule string `json:"rule"`
		} `json:"reasons"`
	}
	var d string
	switch {
	case len(l.Result) == 0 || string(l.Result) == "null":
		// No result: the bundle was not active. Clients must deny.
		e.Verdict, e.Rules = "deny", []string{"engine.no-result"}
	case json.Unmarshal(l.Result, &d) == nil:
		e.Verdict = d
	case json.Unmarshal(l.Result, &v) == nil:
		e.Verdict, e.Policy = v.Decision, v.Policy
		for _, r := range v.Reasons {
			e.Rules = append(e.Rules, r.Rule)
		}
	default:
		return Event{}, false, fmt.Errorf("result: not a verdict")
	}
	if !validDecision(e.Verdict) {
		return Event{}, false, fmt.Errorf("decision %q: want allow, ask or deny", e.Verdict)
	}
	e.Enforced = e.Verdict // OPA answered it; whether the client obeyed is not logged
	return e, true, nil
}

func validDecision(d string) bool { return d == "allow" || d == "ask" || d == "deny" }

// Decisions are the three decisions, in order.
var Decisions = []string{"allow", "ask", "deny"}

// Options configure [Summarize].
type Options struct {
	// Layer returns a rule id's layer (floor, deny, ask, grant, allow,
	// fallback, engine), or "" when the policy does not know it.
	Layer func(id string) string
	// Suggest returns the rule to paste that would cover an uncovered
	// command, and the argv prefix it is for; nil leaves them out.
	Suggest func(command string) (prefix, rule string)
	// Title returns a rule id's title (from the policy's rule metadata),
	// or "" when the policy does not know it; nil leaves titles out.
	Title func(id string) string
	// Top is how many rules and uncovered commands to list (default 10).
	Top int
}

// Summary is what a report shows.
type Summary struct {
	Events   int
	Shadow   int // graded, not enforced
	Verdicts map[string]int
	// ShadowVerdicts counts the verdicts of the shadow-mode events: what
	// rivumi would have decided.
	ShadowVerdicts map[string]int
	// Overridden counts events whose enforced answer differs from the
	// verdict (an approved ask, --ask-as allow or deny).
	Overridden int
	Sources    map[string]int // graded commands by source
	// BySource counts the verdicts of each source ("hook/claude-code",
	// "serve", "harness", "workspace", "opa", …), most events first.
	BySource []SourceCount
	From, To time.Time
	Policies []string // policy hashes seen, most frequent first

	Rules     []RuleCount // asks and denies by rule, most frequent first
	Uncovered []Uncovered // most frequent uncovered commands
	Gate      GateSummary // the exec gate's runs
	Buckets   []Bucket    // decisions over time
	BucketLen time.Duration
	Problems  []Problem
}

// RuleCount is how often a rule took part in an ask or a deny.
type RuleCount struct {
	Rule     string
	Title    string // from Options.Title
	Layer    string // from Options.Layer
	Decision string // the verdict it was counted in: ask or deny
	Count    int
	Shadow   int // of which in shadow mode
	// Examples are up to MaxExamples distinct commands it was counted
	// in, as logged (redacted by the writer), most frequent first.
	Examples []string
}

// SourceCount is how a source's graded commands were decided.
type SourceCount struct {
	Source   string         // as logged; "" when the line names none
	Verdicts map[string]int // allow, ask, deny
	Shadow   int            // of which in shadow mode
	Total    int
}

// MaxExamples is how many example commands a [RuleCount] shows, and
// maxTracked how many distinct commands a rule's count keeps to choose
// them from: memory stays bounded per rule however varied the log. Past
// maxTracked, a new command takes the place of the least frequent one
// (the space-saving scheme), so a command frequent anywhere in the log is
// still found.
const (
	MaxExamples = 3
	maxTracked  = 50
)

// topCommands counts commands in bounded memory (see maxTracked). A
// command that took a slot over counts from the slot's count (an upper
// bound of its own); err keeps that excess, and count-err is a lower
// bound of how often it came up. A command seen more than n/maxTracked
// times of n is always tracked.
type topCommands struct {
	cmds  []string
	count []int
	err   []int
	seq   []int // first-seen order, for ties
	index map[string]int
	n     int
}

func (t *topCommands) add(cmd string) {
	if cmd == "" {
		return
	}
	t.n++
	if i, ok := t.index[cmd]; ok {
		t.count[i]++
		return
	}
	if t.index == nil {
		t.index = map[string]int{}
	}
	if len(t.cmds) < maxTracked {
		t.index[cmd] = len(t.cmds)
		t.cmds, t.count, t.err, t.seq = append(t.cmds, cmd), append(t.count, 1), append(t.err, 0), append(t.seq, t.n)
		return
	}
	low := 0
	for i := range t.count {
		if t.count[i] < t.count[low] {
			low = i
		}
	}
	delete(t.index, t.cmds[low])
	t.index[cmd] = low
	t.cmds[low], t.err[low], t.count[low], t.seq[low] = cmd, t.count[low], t.count[low]+1, t.n
}

// top returns up to n commands, most frequent first (by the lower bound
// of their count; first seen first among equals).
func (t *topCommands) top(n int) []string {
	order := make([]int, len(t.cmds))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool {
		i, j := order[a], order[b]
		if li, lj := t.count[i]-t.err[i], t.count[j]-t.err[j]; li != lj {
			return li > lj
		}
		return t.seq[i] < t.seq[j]
	})
	var out []string
	for _, i := range order[:min(n, len(order))] {
		out = append(out, t.cmds[i])
	}
	return out
}

// Uncovered is an argv prefix no rule covered, how often, examples of its
// commands, and the rule to paste.
type Uncovered struct {
	Prefix   string
	Count    int
	Examples []string
	Rule     string
}

// Bucket counts decisions in [Start, Start+Summary.BucketLen).
type Bucket struct {
	Start  time.Time
	Counts map[string]int
}

// Total is the bucket's number of events.
func (b Bucket) Total() int { return b.Counts["allow"] + b.Counts["ask"] + b.Counts["deny"] }

// fallbackRule is the engine's rule id for an ask no rule raised.
const fallbackRule = "fallback.uncovered"

// Summarize counts events.
func Summarize(events []Event, problems []Problem, o Options) *Summary {
	if o.Top <= 0 {
		o.Top = 10
	}
	var runs []GatedRun
	graded := events[:0:0]
	for _, e := range events {
		if len(e.Execs) > 0 {
			runs = append(runs, gatedRun(e))
		} else {
			graded = append(graded, e)
		}
	}
	events = graded
	s := &Summary{Gate: summarizeGate(runs, o.Top), Verdicts: map[string]int{}, ShadowVerdicts: map[string]int{}, Sources: map[string]int{}, Problems: problems, Events: len(events)}
	policies := map[string]int{}
	rules := map[[2]string]*RuleCount{}
	examples := map[[2]string]*topCommands{}
	sources := map[string]*SourceCount{}
	uncovered := map[string]int{} // command → count
	for _, e := range events {
		s.Verdicts[e.Verdict]++
		s.Sources[e.Source]++
		src := sources[e.Source]
		if src == nil {
			src = &SourceCount{Source: e.Source, Verdicts: map[string]int{}}
			sources[e.Source] = src
		}
		src.Total++
		src.Verdicts[e.Verdict]++
		if e.Shadow() {
			src.Shadow++
			s.Shadow++
			s.ShadowVerdicts[e.Verdict]++
		} else if e.Enforced != e.Verdict {
			s.Overridden++
		}
		if e.Policy != "" {
			policies[e.Policy]++
		}
		if !e.Time.IsZero() {
			if s.From.IsZero() || e.Time.Before(s.From) {
				s.From = e.Time
			}
			if e.Time.After(s.To) {
				s.To = e.Time
			}
		}
		if e.Verdict == "allow" {
			continue
		}
		seen := map[string]bool{}
		for _, id := range e.Rules {
			if seen[id] {
				continue
			}
			seen[id] = true
			layer := ""
			if o.Layer != nil {
				layer = o.Layer(id)
			}
			if !counts(layer, e.Verdict) {
				continue
			}
			k := [2]string{id, e.Verdict}
			rc := rules[k]
			if rc == nil {
				rc = &RuleCount{Rule: id, Layer: layer, Decision: e.Verdict}
				if o.Title != nil {
					rc.Title = o.Title(id)
				}
				rules[k] = rc
				examples[k] = &topCommands{}
			}
			rc.Count++
			examples[k].add(e.Command)
			if e.Shadow() {
				rc.Shadow++
			}
			if id == fallbackRule && e.Command != "" {
				uncovered[e.Command]++
			}
		}
	}
	for k, rc := range rules {
		rc.Examples = examples[k].top(MaxExamples)
		s.Rules = append(s.Rules, *rc)
	}
	for _, sc := range sources {
		s.BySource = append(s.BySource, *sc)
	}
	sort.Slice(s.BySource, func(i, j int) bool {
		a, b := s.BySource[i], s.BySource[j]
		if a.Total != b.Total {
			return a.Total > b.Total
		}
		return a.Source < b.Source
	})
	sort.Slice(s.Rules, func(i, j int) bool {
		a, b := s.Rules[i], s.Rules[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		if a.Decision != b.Decision {
			return a.Decision > b.Decision // deny first
		}
		return a.Rule < b.Rule
	})
	if len(s.Rules) > o.Top {
		s.Rules = s.Rules[:o.Top]
	}
	s.Uncovered = groupUncovered(uncovered, o)
	for p := range policies {
		s.Policies = append(s.Policies, p)
	}
	sort.Slice(s.Policies, func(i, j int) bool {
		if policies[s.Policies[i]] != policies[s.Policies[j]] {
			return policies[s.Policies[i]] > policies[s.Policies[j]]
		}
		return s.Policies[i] < s.Policies[j]
	})
	s.BucketLen, s.Buckets = buckets(events, s.From, s.To)
	return s
}

// counts reports whether a rule of layer is counted in a verdict: in a
// deny the floor, deny and engine rules; in an ask the ask, fallback and
// engine rules. A rule the policy does not know counts (it decided).
func counts(layer, verdict string) bool {
	switch layer {
	case "":
		return true
	case "engine":
		return true
	case "floor", "deny":
		return verdict == "deny"
	case "ask", "fallback":
		return verdict == "ask"
	}
	return false // allow and grant rules lowered something; they decided nothing here
}

// maxSuggest bounds the distinct uncovered commands graded again for the
// rule to paste (the most frequent ones), so a large log stays quick.
const maxSuggest = 2000

// groupUncovered groups uncovered commands by the argv prefix the policy
// suggests a rule for (the command itself without a Suggest function).
func groupUncovered(cmds map[string]int, o Options) []Uncovered {
	byPrefix := map[string]*Uncovered{}
	names := make([]string, 0, len(cmds))
	for c := range cmds {
		names = append(names, c)
	}
	// Most frequent commands first, so examples are the common ones.
	sort.Slice(names, func(i, j int) bool {
		if cmds[names[i]] != cmds[names[j]] {
			return cmds[names[i]] > cmds[names[j]]
		}
		return names[i] < names[j]
	})
	for i, c := range names {
		prefix, rule := c, ""
		if i >= maxSuggest {
			// The long tail is grouped by program without grading again.
			if f := strings.Fields(c); len(f) > 0 {
				prefix = f[0]
			}
		} else if o.Suggest != nil {
			if p, r := o.Suggest(c); p != "" {
				prefix, rule = p, r
			}
		}
		u := byPrefix[prefix]
		if u == nil {
			u = &Uncovered{Prefix: prefix, Rule: rule}
			byPrefix[prefix] = u
		}
		u.Count += cmds[c]
		if len(u.Examples) < 3 {
			u.Examples = append(u.Examples, c)
		}
	}
	out := make([]Uncovered, 0, len(byPrefix))
	for _, u := range byPrefix {
		out = append(out, *u)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Prefix < out[j].Prefix
	})
	if len(out) > o.Top {
		out = out[:o.Top]
	}
	return out
}

// bucketSizes are the widths decisions over time are counted in: the
// smallest that gives at most maxBuckets.
var bucketSizes = []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour, 6 * time.Hour, 24 * time.Hour, 7 * 24 * time.Hour, 30 * 24 * time.Hour}

const maxBuckets = 48

func buckets(events []Event, from, to time.Time) (time.Duration, []Bucket) {
	if from.IsZero() {
		return 0, nil
	}
	size := bucketSizes[len(bucketSizes)-1]
	for _, d := range bucketSizes {
		if int(to.Sub(from.Truncate(d))/d)+1 <= maxBuckets {
			size = d
			break
		}
	}
	start := from.UTC().Truncate(size)
	n := int(to.Sub(start)/size) + 1
	out := make([]Bucket, n)
	for i := range out {
		out[i] = Bucket{Start: start.Add(time.Duration(i) * size), Counts: map[string]int{}}
	}
	for _, e := range events {
		if e.Time.IsZero() {
			continue
		}
		i := int(e.Time.Sub(start) / size)
		if i >= 0 && i < n {
			out[i].Counts[e.Verdict]++
		}
	}
	return size, out
}
