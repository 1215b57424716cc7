package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

// The failure modes of a hook, measured against the real agent CLIs: what
// each agent does with a tool call when the hook cannot answer. The
// end-to-end tests measure them (failModes) and compare with
// testdata/failmodes.json; docs/agents.md's table is generated from that
// file (TestFailModesDoc), so the table says what was measured.

// failMode is one way a hook can fail: the script that stands in for
// rivumi ("" for: the binary is gone).
type failMode struct {
	name, what, script string
}

var failModesList = []failMode{
	{"missing", "the binary is gone", ""},
	{"crash", "exits 1 with garbage on stderr", "#!/bin/sh\necho 'panic: boom' >&2\nexit 1\n"},
	{"signal", "dies by a signal (SIGSEGV)", "#!/bin/sh\nkill -SEGV $$\n"},
	{"garbage", "exits 0 with garbage on stdout", "#!/bin/sh\necho 'not json {'\nexit 0\n"},
	{"hung", "never answers (past the agent's timeout)", "#!/bin/sh\nexec sleep 600\n"},
}

// failModesMeasured collects what the end-to-end tests measured, by agent
// and version, for the comparison in TestAgentsE2E's cleanup.
var failModesMeasured = struct {
	sync.Mutex
	m map[string]map[string]string
}{m: map[string]map[string]string{}}

// failModes swaps the program the entry runs (a.hook: the thin client, or
// the full binary) for each failing stand-in, has the agent run `touch
// MARKER` through run (a call the user's own settings allow, so that only
// the hook can stop it), and records whether it ran. "The binary is gone"
// removes the full binary too (a plugin runs it when the thin client
// cannot start).
func failModes(t *testing.T, a *e2eAgent, version string, run func(cmd string)) {
	t.Helper()
	orig, err := os.ReadFile(a.hook)
	if err != nil {
		t.Fatal(err)
	}
	origFull, err := os.ReadFile(a.rivumi)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, m := range failModesList {
		marker := "FAILMODE-" + strings.ToUpper(m.name)
		if m.script == "" {
			if err := os.Remove(a.hook); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(a.rivumi); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(a.hook, []byte(m.script), 0o755); err != nil {
			t.Fatal(err)
		}
		run("touch " + marker)
		if err := os.WriteFile(a.hook, orig, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(a.rivumi, origFull, 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(a.proj, marker)); err == nil {
			got[m.name] = "runs the tool"
		} else {
			got[m.name] = "blocks the tool"
		}
		t.Logf("failure mode %s (%s): %s, %v", m.name, m.what, got[m.name], a.lastWall)
	}
	key := a.name + " " + version
	failModesMeasured.Lock()
	failModesMeasured.m[key] = got
	failModesMeasured.Unlock()
	want, err := readFailModes()
	if err != nil {
		t.Fatal(err)
	}
	if w, ok := want[key]; !ok {
		t.Logf("no failure modes on record for %s (a newer version): measured %v", key, got)
	} else {
		for _, m := range failModesList {
			if w[m.name] != got[m.name] {
				t.Errorf("failure mode %s of %s: measured %q, testdata/failmodes.json says %q: update it (and docs/agents.md: go test ./internal/cli -run TestFailModesDoc -update)", m.name, key, got[m.name], w[m.name])
			}
		}
	}
}

const failModesFile = "testdata/failmodes.json"

func readFailModes() (map[string]map[string]string, error) {
	b, err := os.ReadFile(failModesFile)
	if err != nil {
		return nil, err
	}
	var m map[string]map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", failModesFile, err)
	}
	return m, nil
}

// failModesTable is the Markdown table docs/agents.md shows.
func failModesTable(m map[string]map[string]string) string {
	var b bytes.Buffer
	b.WriteString("| the hook … |")
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		b.WriteString(" " + k + " |")
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(keys)) + "\n")
	for _, fm := range failModesList {
		b.WriteString("| " + fm.what + " |")
		for _, k := range keys {
			v := m[k][fm.name]
			if v == "runs the tool" {
				v = "**runs the tool** (fails open)"
			}
			b.WriteString(" " + v + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}

const (
	failModesBegin = "<!-- failmodes:begin (generated from internal/cli/testdata/failmodes.json by TestFailModesDoc; measured by the end-to-end tests) -->\n"
	failModesEnd   = "<!-- failmodes:end -->"
)

// TestFailModesDoc keeps docs/agents.md's failure-mode table equal to
// what the end-to-end tests measured (testdata/failmodes.json).
func TestFailModesDoc(t *testing.T) {
	m, err := readFailModes()
	if err != nil {
		t.Fatal(err)
	}
	for k, modes := range m {
		for _, fm := range failModesList {
			if v := modes[fm.name]; v != "runs the tool" && v != "blocks the tool" {
				t.Errorf("%s: %s: %q is not a measurement", k, fm.name, v)
			}
		}
		if !slices.Contains([]string{"claude-code", "gemini", "codex", "qwen", "opencode", "pi", "omp", "copilot"}, strings.Fields(k)[0]) {
			t.Errorf("%s: not an agent the end-to-end tests drive", k)
		}
	}
	const doc = "../../docs/agents.md"
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i, j := strings.Index(s, failModesBegin), strings.Index(s, failModesEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no failure-mode table markers", doc)
	}
	want := s[:i+len(failModesBegin)] + failModesTable(m) + s[j:]
	if *update {
		if err := os.WriteFile(doc, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want != s {
		t.Errorf("%s's failure-mode table differs from %s: go test ./internal/cli -run TestFailModesDoc -update", doc, failModesFile)
	}
}
