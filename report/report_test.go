package report

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

// fixture reads testdata/shadow.jsonl: rivumi hook lines in shadow mode,
// serve and harness lines, OPA decision log lines (one of another path),
// a run line, an unreadable line and a torn last line.
func fixture(t *testing.T) *Summary {
	t.Helper()
	f, err := os.Open("testdata/shadow.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	events, problems, err := Read(f, "shadow.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	layers := map[string]string{
		"allow.readonly": "allow", "allow.git-readonly": "allow", "git.force-push": "deny",
		"floor.rm-critical": "floor", "packages.install": "ask", "fallback.uncovered": "fallback",
	}
	titles := map[string]string{"git.force-push": "Force push", "fallback.uncovered": "No rule covers this command"}
	return Summarize(events, problems, Options{
		Layer: func(id string) string { return layers[id] },
		Title: func(id string) string { return titles[id] },
		Suggest: func(c string) (string, string) {
			if strings.HasPrefix(c, "acmectl ") {
				return "acmectl", "- id: team.allow-acmectl\n  pattern: [acmectl]"
			}
			return "", ""
		},
	})
}

func TestSummarizeFixture(t *testing.T) {
	s := fixture(t)
	if s.Events != 13 || s.Shadow != 6 || s.Overridden != 1 {
		t.Errorf("events %d shadow %d overridden %d; want 13 6 1", s.Events, s.Shadow, s.Overridden)
	}
	if v := s.Verdicts; v["allow"] != 5 || v["ask"] != 5 || v["deny"] != 3 {
		t.Errorf("verdicts %v", v)
	}
	if v := s.ShadowVerdicts; v["allow"] != 2 || v["ask"] != 3 || v["deny"] != 1 {
		t.Errorf("shadow verdicts %v", v)
	}
	if s.Sources["opa"] != 3 || s.Sources["hook/claude-code"] != 6 {
		t.Errorf("sources %v (OPA's system/main query and the run line must not count)", s.Sources)
	}
	want := []RuleCount{
		{Rule: "fallback.uncovered", Title: "No rule covers this command", Layer: "fallback", Decision: "ask", Count: 3, Shadow: 2,
			Examples: []string{"acmectl status web", "acmectl status api | grep up", "acmectl status db"}},
		{Rule: "git.force-push", Title: "Force push", Layer: "deny", Decision: "deny", Count: 2, Shadow: 1,
			Examples: []string{"git push --force origin main", "git push -f origin main"}},
		{Rule: "packages.install", Layer: "ask", Decision: "ask", Count: 2, Shadow: 1,
			Examples: []string{"npm install lodash", "npm install left-pad"}},
		{Rule: "floor.rm-critical", Layer: "floor", Decision: "deny", Count: 1,
			Examples: []string{"rm -rf / --no-preserve-root"}},
	}
	if len(s.Rules) != len(want) {
		t.Fatalf("rules %+v", s.Rules)
	}
	for i := range want {
		if !reflect.DeepEqual(s.Rules[i], want[i]) {
			t.Errorf("rule %d: %+v, want %+v", i, s.Rules[i], want[i])
		}
	}
	wantSources := []SourceCount{
		{Source: "hook/claude-code", Verdicts: map[string]int{"allow": 2, "ask": 3, "deny": 1}, Shadow: 6, Total: 6},
		{Source: "opa", Verdicts: map[string]int{"allow": 1, "ask": 1, "deny": 1}, Total: 3},
		{Source: "serve", Verdicts: map[string]int{"allow": 1, "deny": 1}, Total: 2},
		{Source: "harness", Verdicts: map[string]int{"ask": 1}, Total: 1},
		{Source: "hook/gemini", Verdicts: map[string]int{"allow": 1}, Total: 1},
	}
	if !reflect.DeepEqual(s.BySource, wantSources) {
		t.Errorf("by source:\n%+v\nwant\n%+v", s.BySource, wantSources)
	}
	if len(s.Uncovered) != 1 || s.Uncovered[0].Prefix != "acmectl" || s.Uncovered[0].Count != 3 || len(s.Uncovered[0].Examples) != 3 || !strings.Contains(s.Uncovered[0].Rule, "pattern: [acmectl]") {
		t.Errorf("uncovered %+v", s.Uncovered)
	}
	// 09:05 … 11:30 in 5-minute buckets.
	if len(s.Buckets) != 30 || s.BucketLen.Minutes() != 5 {
		t.Errorf("%d buckets of %v", len(s.Buckets), s.BucketLen)
	}
	total := 0
	for _, b := range s.Buckets {
		total += b.Total()
	}
	if total != 13 {
		t.Errorf("buckets hold %d events", total)
	}
	// The non-JSON line is a problem; the torn last line is not.
	if len(s.Problems) != 1 || s.Problems[0].Line != 10 {
		t.Errorf("problems %v", s.Problems)
	}
}

func TestReadShapes(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		verdict    string // "" for no event
		rules      string
		problem    bool
	}{
		{"shadow hook", `{"kind":"grade","verdict":"ask","answer":"none","rules":["x"]}` + "\n", "ask", "x", false},
		{"argv", `{"kind":"grade","argv":["ls","-l"],"verdict":"allow","decision":"allow"}` + "\n", "allow", "", false},
		{"bad verdict", `{"kind":"grade","verdict":"maybe"}` + "\n", "", "", true},
		{"grant line", `{"kind":"grant","prefix":["npm"]}` + "\n", "", "", false},
		{"opa no result", `{"decision_id":"1","path":"rivumi/entry/verdict","input":{"command":"ls"}}` + "\n", "deny", "engine.no-result", false},
		{"opa other path", `{"decision_id":"1","path":"x/y","result":1}` + "\n", "", "", false},
		{"opa bad result", `{"decision_id":"1","path":"/rivumi/entry/verdict","result":[1]}` + "\n", "", "", true},
		{"torn", `{"kind":"grade","verdict":"deny"`, "", "", false},
	} {
		ev, ps, err := Read(strings.NewReader(tc.line), "t")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if (len(ps) > 0) != tc.problem {
			t.Errorf("%s: problems %v", tc.name, ps)
		}
		got, rules := "", ""
		if len(ev) == 1 {
			got, rules = ev[0].Verdict, strings.Join(ev[0].Rules, ",")
		}
		if got != tc.verdict || rules != tc.rules {
			t.Errorf("%s: verdict %q rules %q, want %q %q", tc.name, got, rules, tc.verdict, tc.rules)
		}
	}
	// A line over the limit is a problem; the next line still reads.
	long := `{"kind":"grade","verdict":"allow","command":"` + strings.Repeat("x", maxLine) + `"}` + "\n" + `{"kind":"grade","verdict":"deny"}` + "\n"
	ev, ps, err := Read(strings.NewReader(long), "t")
	if err != nil || len(ps) != 1 || len(ev) != 1 || ev[0].Verdict != "deny" {
		t.Errorf("long line: %v %v %v", ev, ps, err)
	}
}

func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	if err := WriteText(&b, fixture(t)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"13 graded commands, 2026-11-30 09:05 … 2026-11-30 11:30",
		"allow 5 (38.5%)   ask 5 (38.5%)   deny 3 (23.1%)",
		"shadow mode: 6 of them graded but not enforced; rivumi would have: allow 2, ask 3, deny 1",
		"     3  ask   fallback.uncovered (2 in shadow mode)",
		"     2  deny  git.force-push     (1 in shadow mode)\n                Force push\n                  e.g. git push --force origin main\n                  e.g. git push -f origin main\n",
		"     3  ask   fallback.uncovered (2 in shadow mode)\n                No rule covers this command\n                  e.g. acmectl status web\n",
		"     1  deny  floor.rm-critical\n                  e.g. rm -rf / --no-preserve-root\n",
		"By source:\n  source             allow     ask    deny  shadow\n  hook/claude-code       2       3       1       6\n  opa                    1       1       1       0\n",
		"     3  acmectl\n",
		"            pattern: [acmectl]",
		"Decisions over time (per 5 minutes):",
		"  2026-11-30 09:40     0 allow    2 ask    0 deny  ",
		"1 unreadable lines skipped:\n  shadow.jsonl:10: ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}

func TestWriteHTMLSelfContained(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, fixture(t), "rivumi <decisions>"); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script", "src=", "href=", "url(", "@import", "http://", "https://"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q: it must load nothing", bad)
		}
	}
	for _, want := range []string{"default-src 'none'", "<title>rivumi &lt;decisions&gt;</title>", `<svg id="time-chart"`, `<svg id="rule-chart"`,
		`<table id="source-table">`, `<span class="rule-title" data-rule="fallback.uncovered">No rule covers this command</span>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// TestWriteHTMLReplayPage: the link to a replay's page is in the header
// when given, escaped, and never a script.
func TestWriteHTMLReplayPage(t *testing.T) {
	for _, tc := range []struct {
		href, want, not string
	}{
		{"", "", `id="replay-link"`},
		{"replay.html", `<a href="replay.html">replay.html</a>`, ""},
		{"https://ci.example/job/7/replay.html", `<a href="https://ci.example/job/7/replay.html">`, ""},
		{`r".html`, `<a href="r%22.html">r&#34;.html</a>`, ""},
		{"javascript:alert(1)", `href="#ZgotmplZ"`, `href="javascript:`},
	} {
		var b bytes.Buffer
		if err := WriteHTML(&b, fixture(t), "t", ReplayPage(tc.href)); err != nil {
			t.Fatal(err)
		}
		page := b.String()
		if tc.want != "" && !strings.Contains(page, tc.want) {
			t.Errorf("%q: the page lacks %q", tc.href, tc.want)
		}
		if tc.not != "" && strings.Contains(page, tc.not) {
			t.Errorf("%q: the page holds %q", tc.href, tc.not)
		}
	}
}

// TestDoctorProbesNotCounted: the calls `rivumi hook doctor` makes through
// an entry (source doctor/AGENT) are no agent's and are not counted.
func TestDoctorProbesNotCounted(t *testing.T) {
	log := `{"kind":"grade","source":"doctor/claude-code","command":"rm -rf /","verdict":"deny","decision":"deny","rules":["floor.rm-critical"]}
{"kind":"grade","source":"hook/claude-code","command":"ls","verdict":"allow","decision":"allow","rules":["allow.readonly"]}
`
	events, problems, err := Read(strings.NewReader(log), "audit.jsonl")
	if err != nil || len(problems) > 0 {
		t.Fatal(err, problems)
	}
	if len(events) != 1 || events[0].Source != "hook/claude-code" {
		t.Errorf("events %+v, want the hook's call alone", events)
	}
}

// TestRuleExamples: a rule's examples are its most frequent distinct
// commands, first seen first among equals, chosen in bounded memory.
func TestRuleExamples(t *testing.T) {
	many := func(prefix string, n int) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf("%s %d", prefix, i))
		}
		return out
	}
	rep := func(c string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = c
		}
		return out
	}
	for _, tc := range []struct {
		name string
		cmds []string
		want []string
	}{
		{"frequency first", []string{"a", "b", "b", "c", "c", "c"}, []string{"c", "b", "a"}},
		{"ties in log order", []string{"x", "y", "z", "w"}, []string{"x", "y", "z"}},
		{"distinct only", []string{"a", "a", "a"}, []string{"a"}},
		{"no command", []string{"", "", "a"}, []string{"a"}},
		// 200 distinct commands overflow the table; a command seen more
		// than n/maxTracked times is found wherever it comes up.
		{"frequent late", append(many("once", 200), rep("late", 10)...), []string{"late"}},
		{"frequent early", append(rep("early", 10), many("once", 200)...), []string{"early"}},
		{"frequent between", append(append(many("a", 100), rep("mid", 6)...), append(many("b", 100), "mid")...), []string{"mid"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tk topCommands
			for _, c := range tc.cmds {
				tk.add(c)
			}
			if len(tk.cmds) > maxTracked || len(tk.index) != len(tk.cmds) {
				t.Fatalf("tracks %d commands (index %d), at most %d", len(tk.cmds), len(tk.index), maxTracked)
			}
			got := tk.top(MaxExamples)
			if len(tc.cmds) > maxTracked {
				got = got[:1] // the rest are among the commands seen once
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("examples %q, want %q", got, tc.want)
			}
		})
	}
}
