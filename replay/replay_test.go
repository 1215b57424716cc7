package replay_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/replay"
	"github.com/rivumi/rivumi/verdict"
)

// candidateModule allows acmectl status (uncovered: ask today) and denies
// terraform destroy.
const candidateModule = `package rivumi.user.team

# METADATA
# title: acmectl status reads
# custom:
#   id: team.acme-status
#   justification: It only reads.
allow contains {"id": "team.acme-status"} if {
	input.segment.program == "acmectl"
	input.segment.argv[1] == "status"
}

# METADATA
# title: No terraform destroy
# custom:
#   id: team.tf-destroy
#   justification: Destroying infrastructure goes through the release pipeline.
deny contains {"id": "team.tf-destroy"} if {
	input.segment.program == "terraform"
	input.segment.subcommand == "destroy"
}
`

var engines = sync.OnceValues(func() ([2]*engine.Engine, error) {
	ctx := context.Background()
	cur, err := engine.New(ctx)
	if err != nil {
		return [2]*engine.Engine{}, err
	}
	cand, err := engine.New(ctx, engine.UserModule("team.rego", candidateModule))
	return [2]*engine.Engine{cur, cand}, err
})

func mustEngines(t testing.TB) (cur, cand *engine.Engine) {
	t.Helper()
	es, err := engines()
	if err != nil {
		t.Fatal(err)
	}
	return es[0], es[1]
}

func gradeLine(source, command string) string {
	b, _ := json.Marshal(map[string]any{"kind": "grade", "source": source, "command": command,
		"cwd": "/home/dev/app", "workspace": "/home/dev/app", "decision": "ask", "verdict": "ask"})
	return string(b)
}

func opaLine(id string, input any, erased ...string) string {
	m := map[string]any{"decision_id": id, "path": "rivumi/entry/verdict", "input": input,
		"result": map[string]any{"decision": "ask"}}
	if len(erased) > 0 {
		m["erased"] = erased
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// knownLines is a log with a known diff against the candidate: four
// requests become allow, one deny, one stays, and six lines are skipped
// for six reasons.
var knownLines = []string{
	gradeLine("hook/claude", "acmectl status --json"),                                     // 1 ask→allow
	gradeLine("serve", "ls -la"),                                                          // 2 unchanged
	`{"kind":"run","source":"harness","argv":["make"]}`,                                   // 3 not a grade
	gradeLine("hook/codex", "acmectl status"),                                             // 4 ask→allow
	gradeLine("serve", "terraform destroy -auto-approve"),                                 // 5 →deny
	gradeLine("serve", "curl -H 'Authorization: [REDACTED]' x.test"),                      // 6 masked
	`{"kind":"grade","command":`,                                                          // 7 bad JSON
	opaLine("a", map[string]any{"argv": []string{"acmectl", "status"}, "cwd": "/srv"}),    // 8 ask→allow
	opaLine("b", nil, "/input/command"),                                                   // 9 erased
	`{"hello":"world"}`,                                                                   // 10 unknown
	gradeLine("serve", "acmectl status --token=ghp_abcdefghijklmnopqrstuvwxyz0123456789"), // 11 ask→allow, redacted in the report
	`{"kind":"grade","source":"serve","verdict":"allow"}`,                                 // 12 no command
	opaLine("c", map[string]any{"command": "git status", "colour": "red"}),                // 13 unknown key
	"",
}

// knownReplay replays knownLines with the candidate, titles from its
// rules.
func knownReplay(t testing.TB) *replay.Summary {
	t.Helper()
	cur, cand := mustEngines(t)
	meta := cand.Rules()
	s, err := replay.Replay(context.Background(), []replay.Log{{Name: "a.jsonl", R: strings.NewReader(strings.Join(knownLines, "\n"))}},
		replay.EngineGrader(cur), replay.EngineGrader(cand), replay.Options{Defaults: verdict.Request{Cwd: "/work", Workspace: "/work"},
			Title: func(id string) string { return meta[id].Title }})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestReplayKnownDiff(t *testing.T) {
	s := knownReplay(t)
	if s.Lines != 13 || s.Replayed != 6 || s.Changed != 5 || s.Unchanged != 1 || s.BecameAllow() != 4 {
		t.Errorf("lines %d replayed %d changed %d unchanged %d became allow %d; want 13 6 5 1 4",
			s.Lines, s.Replayed, s.Changed, s.Unchanged, s.BecameAllow())
	}
	var got []string
	for _, c := range s.Changes {
		var cmds []string
		for _, e := range c.Examples {
			cmds = append(cmds, fmt.Sprintf("%s@%d×%d", e.Command, e.Line, e.Count))
		}
		got = append(got, fmt.Sprintf("%s→%s %d [%s]", c.From, c.To, c.Count, strings.Join(cmds, "; ")))
	}
	want := []string{
		"ask→allow 4 [acmectl status --json@1×1; acmectl status@4×2; acmectl status --token=[REDACTED]@11×1]",
	}
	if len(got) != 2 || got[0] != want[0] || !strings.HasSuffix(got[1], "→deny 1 [terraform destroy -auto-approve@5×1]") {
		t.Errorf("changes:\n%s\nwant first %s and then one →deny of terraform destroy", strings.Join(got, "\n"), want[0])
	}
	rules := map[string]replay.RuleDelta{}
	for _, r := range s.Rules {
		rules[r.Rule] = r
	}
	if r := rules["team.acme-status"]; r.Gained != 4 || r.Lost != 0 || r.Title != "acmectl status reads" {
		t.Errorf("team.acme-status: %+v, want gained 4 and its title", r)
	}
	if r := rules["team.tf-destroy"]; r.Gained != 1 {
		t.Errorf("team.tf-destroy: %+v, want gained 1", r)
	}
	skips := map[string][]int{}
	for _, k := range s.Skipped {
		for _, p := range k.Lines {
			skips[k.Reason] = append(skips[k.Reason], p.Line)
		}
		if len(k.Lines) != k.Count {
			t.Errorf("%s: %d lines listed of %d", k.Reason, len(k.Lines), k.Count)
		}
	}
	wantSkips := map[string][]int{
		replay.ReasonMaskedCommand: {6}, replay.ReasonBadJSON: {7}, replay.ReasonErased: {9},
		replay.ReasonUnknown: {10}, replay.ReasonNoCommand: {12}, replay.ReasonBadRequest: {13},
	}
	if fmt.Sprint(skips) != fmt.Sprint(wantSkips) {
		t.Errorf("skipped %v, want %v", skips, wantSkips)
	}
	for on, want := range map[replay.FailOn]bool{replay.FailNever: false, replay.FailAllowIncrease: true,
		replay.FailLoosen: true, replay.FailAnyChange: true} {
		if got := s.Fails(on); got != want {
			t.Errorf("Fails(%s) = %v, want %v", on, got, want)
		}
	}
	var text strings.Builder
	if err := replay.WriteText(&text, s); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text.String(), "ghp_") {
		t.Errorf("the report shows a secret:\n%s", text.String())
	}
	if !strings.Contains(text.String(), "← became allow") || !strings.Contains(text.String(), "a.jsonl:7") ||
		!regexp.MustCompile(`(?m)^  team\.tf-destroy +\+1 -0 +No terraform destroy$`).MatchString(text.String()) {
		t.Errorf("text report:\n%s", text.String())
	}
}

// A candidate that changes nothing reports nothing and fails nothing.
func TestReplaySamePolicy(t *testing.T) {
	cur, _ := mustEngines(t)
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintln(&b, gradeLine("serve", fmt.Sprintf("acmectl status %d && rm -rf /tmp/x%d", i, i)))
	}
	s, err := replay.Replay(context.Background(), []replay.Log{{Name: "b", R: strings.NewReader(b.String())}},
		replay.EngineGrader(cur), replay.EngineGrader(cur), replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Replayed != 200 || s.Changed != 0 || len(s.Changes) != 0 || s.Fails(replay.FailAnyChange) {
		t.Errorf("replayed %d changed %d changes %v", s.Replayed, s.Changed, s.Changes)
	}
}

// Samples stay bounded however many distinct commands change.
func TestReplaySamplesBounded(t *testing.T) {
	cur, cand := mustEngines(t)
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintln(&b, gradeLine("serve", fmt.Sprintf("acmectl status n%d", i)))
		fmt.Fprintln(&b, `not json`)
	}
	s, err := replay.Replay(context.Background(), []replay.Log{{Name: "c", R: strings.NewReader(b.String())}},
		replay.EngineGrader(cur), replay.EngineGrader(cand), replay.Options{Samples: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Changes) != 1 || s.Changes[0].Count != 300 || len(s.Changes[0].Examples) != 3 {
		t.Fatalf("changes %+v", s.Changes)
	}
	if len(s.Skipped) != 1 || s.Skipped[0].Count != 300 || len(s.Skipped[0].Lines) != 3 || s.Skipped[0].Lines[2].Line != 6 {
		t.Errorf("skipped %+v", s.Skipped)
	}
}
