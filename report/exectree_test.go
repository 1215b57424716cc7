package report

import (
	"bytes"
	"strings"
	"testing"
)

// A gated run's log line becomes an exec tree: a process that exec'd again
// (env → node) continues its own branch, a child hangs under its parent
// process, repeated PATH attempts fold into one line, and the run counts in
// the gate's section only, never as a graded command.
func TestExecTree(t *testing.T) {
	log := `{"kind":"grade","time":"2026-12-05T07:00:00Z","source":"harness","command":"make -s","verdict":"ask","decision":"allow","rules":["exec.workspace-code"]}
{"kind":"run","time":"2026-12-05T07:00:01Z","source":"harness","argv":["make","-s"],"execs":[
 {"pid":10,"ppid":9,"argv":["make","-s"],"allowed":true},
 {"pid":11,"ppid":10,"argv":["npm","test"],"allowed":true},
 {"pid":11,"ppid":10,"argv":["node","/usr/bin/npm","test"],"allowed":true},
 {"pid":11,"ppid":10,"argv":["node","/usr/bin/npm","test"],"allowed":true},
 {"pid":12,"ppid":11,"argv":["sh","-c","rm -rf /home/u"],"allowed":false,"rule":"floor.rm-critical"},
 {"pid":13,"ppid":10,"argv":["echo","\rdone"],"allowed":true}]}
{"kind":"run","time":"2026-12-05T07:00:02Z","source":"harness","argv":["ls"],"execs":[{"pid":20,"ppid":1,"argv":["ls"],"allowed":true}]}
`
	events, problems, err := Read(strings.NewReader(strings.ReplaceAll(log, "\n ", " ")), "x")
	if err != nil || len(problems) > 0 {
		t.Fatal(err, problems)
	}
	s := Summarize(events, nil, Options{})
	if s.Events != 1 || s.Verdicts["ask"] != 1 {
		t.Errorf("graded commands %d %v: the runs were counted as graded", s.Events, s.Verdicts)
	}
	g := s.Gate
	if g.Runs != 2 || g.Execs != 7 || g.Refused != 1 || len(g.Trees) != 1 {
		t.Fatalf("gate summary %+v", g)
	}
	var got []string
	for _, l := range g.Trees[0].Tree {
		got = append(got, strings.Repeat(".", l.Depth)+argvText(l.Exec.Argv)+"|"+l.Exec.Rule+"|"+string(rune('0'+l.Attempts)))
	}
	want := []string{
		"make -s||1",
		".npm test||1",
		"..node /usr/bin/npm test||2",
		"...sh -c 'rm -rf /home/u'|floor.rm-critical|1",
		".echo $'\\x0ddone'||1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("tree:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	var text bytes.Buffer
	if err := WriteText(&text, s); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Exec gate: 2 gated runs, 7 execs, 1 refused", "      make -s\n", "sh -c 'rm -rf /home/u'  ✗ floor.rm-critical", "(×2)"} {
		if !strings.Contains(text.String(), w) {
			t.Errorf("text report lacks %q:\n%s", w, text.String())
		}
	}
	var html bytes.Buffer
	if err := WriteHTML(&html, s, "t"); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`id="exec-gate"`, `data-rule="floor.rm-critical"`, `id="gate-refused">1<`} {
		if !strings.Contains(html.String(), w) {
			t.Errorf("HTML report lacks %q", w)
		}
	}
}
