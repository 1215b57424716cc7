package tools_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rivumi/rivumi/engine"
	"github.com/rivumi/rivumi/harness"
	"github.com/rivumi/rivumi/workspace"
	"github.com/rivumi/rivumi/workspace/bundle"
	"github.com/rivumi/rivumi/workspace/internal/gittest"
	"github.com/rivumi/rivumi/workspace/tools"

	"github.com/rivumi/rivumi/internal/testenv"
)

var (
	engOnce sync.Once
	eng     *engine.Engine
	engErr  error
)

func testEngine(t *testing.T) *engine.Engine {
	t.Helper()
	engOnce.Do(func() { eng, engErr = engine.New(context.Background()) })
	if engErr != nil {
		t.Fatal(engErr)
	}
	return eng
}

type fixture struct {
	src, sha string
	w        *workspace.Workspace
	tools    *tools.Tools
}

var sourceFiles = map[string]string{
	"README.md":      "# demo\n",
	"src/main.go":    "package main\n\nfunc main() { println(\"hello\") }\n",
	"src/util.go":    "package main\n\n// twice\n// twice\n",
	"docs/guide.txt": "guide\n",
	"run.sh":         "#!/bin/sh\nexit 0\n",
}

type option func(*workspace.Config, *tools.Config)

func newFixture(t *testing.T, opts ...option) *fixture {
	t.Helper()
	src, sha := gittest.Repo(t, sourceFiles)
	wc := workspace.Config{
		AllowedPaths: []string{"src/**", "README.md", "new/**", "out.txt"},
		Checks: []bundle.Check{
			{Name: "pass", Argv: []string{"true"}},
			{Name: "fail", Argv: []string{"ls", "no-such-file"}},
			{Name: "slow", Argv: []string{"sleep", "5"}, Timeout: bundle.Duration(200 * time.Millisecond)},
		},
	}
	tc := tools.Config{Harness: harness.Config{KillGrace: 100 * time.Millisecond}}
	for _, o := range opts {
		o(&wc, &tc)
	}
	if sb := tc.Harness.Sandbox; sb != "" && sb != harness.SandboxNone {
		testenv.SkipInsideRun(t, "a nested sandbox ("+string(sb)+")")
	}
	w, err := workspace.Prepare(context.Background(), workspace.PrepareOptions{
		Source: src, Commit: sha, RunRoot: t.TempDir(), Name: "run", Task: "test", Config: wc,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	tc.Workspace = w
	ts, err := tools.New(tc)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{src: src, sha: sha, w: w, tools: ts}
}

// call runs a tool with args given as a Go value and decodes its output.
func (f *fixture) call(t *testing.T, name string, args any, out any) tools.Result {
	t.Helper()
	raw, ok := args.(string)
	if !ok {
		b, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		raw = string(b)
	}
	res, err := f.tools.Call(context.Background(), name, json.RawMessage(raw))
	if err != nil {
		t.Fatalf("%s(%s): unexpected error %v", name, raw, err)
	}
	if out != nil && len(res.Output) > 0 {
		if err := json.Unmarshal(res.Output, out); err != nil {
			t.Fatalf("%s output %s: %v", name, res.Output, err)
		}
	}
	return res
}

func (f *fixture) mustOK(t *testing.T, name string, args any, out any) {
	t.Helper()
	if res := f.call(t, name, args, out); !res.OK {
		t.Fatalf("%s(%v) refused: %s", name, args, res.Error)
	}
}

func (f *fixture) mustRefuse(t *testing.T, name string, args any, want string) tools.Result {
	t.Helper()
	res := f.call(t, name, args, nil)
	if res.OK || !strings.Contains(res.Error, want) {
		t.Errorf("%s(%v) = ok %v, error %q; want a refusal mentioning %q", name, args, res.OK, res.Error, want)
	}
	return res
}

func (f *fixture) file(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.w.Dir(), rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestReadThenReplace(t *testing.T) {
	f := newFixture(t)
	var rd tools.ReadFileOutput
	f.mustOK(t, tools.ToolReadFile, tools.ReadFileArgs{Path: "src/main.go"}, &rd)
	if rd.Content != sourceFiles["src/main.go"] || len(rd.SHA256) != 64 {
		t.Fatalf("read = %+v", rd)
	}
	var rp tools.ReplaceTextOutput
	f.mustOK(t, tools.ToolReplaceText, tools.ReplaceTextArgs{Path: "src/main.go", Old: `"hello"`, New: `"bye"`}, &rp)
	if got := f.file(t, "src/main.go"); !strings.Contains(got, `println("bye")`) {
		t.Errorf("file after replace:\n%s", got)
	}
	if rp.Replacements != 1 || rp.SHA256 == rd.SHA256 {
		t.Errorf("replace = %+v", rp)
	}
	// The new version is known: a second replace needs no new read.
	f.mustOK(t, tools.ToolReplaceText, tools.ReplaceTextArgs{Path: "src/main.go", Old: `"bye"`, New: `"again"`}, nil)
	// No temporary file is left beside the target.
	ents, _ := os.ReadDir(filepath.Join(f.w.Dir(), "src"))
	for _, e := range ents {
		if strings.Contains(e.Name(), ".rivumi-replace-") {
			t.Errorf("temporary %s left", e.Name())
		}
	}
	evs, _ := f.w.Bundle().Events()
	if len(evs) != 3 || evs[0].SHA256 != rd.SHA256 || evs[0].Path != "src/main.go" || evs[1].Tool != tools.ToolReplaceText || !evs[1].OK {
		t.Errorf("events = %+v", evs)
	}
}

func TestReplaceRefusals(t *testing.T) {
	f := newFixture(t)
	// Without a read.
	f.mustRefuse(t, tools.ToolReplaceText, tools.ReplaceTextArgs{Path: "src/main.go", Old: "main", New: "x"}, "read_file first")
	// Changed since the read.
	f.mustOK(t, tools.ToolReadFile, tools.ReadFileArgs{Path: "src/main.go"}, nil)
	gittest.Write(t, f.w.Dir(), map[string]string{"src/main.go": sourceFiles["src/main.go"] + "// edited elsewhere\n"})
	f.mustRefuse(t, tools.ToolReplaceText, tools.ReplaceTextArgs{Path: "src/main.go", Old: "main()", New: "x()"}, "changed since it was read")
	if !strings.Contains(f.file(t, "src/main.go"), "edited elsewhere") {
		t.Error("a stale replace wrote the file")
	}
	// Untracked.
	gittest.Write(t, f.w.Dir(), map[string]string{"src/new.go": "package main\n"})
	f.mustOK(t, tools.ToolReadFile, tools.ReadFileArgs{Path: "src/new.go"}, nil)
	f.mustRefuse(t, tools.ToolReplaceText, tools.ReplaceTextArgs{Path: "src/new.go", Old: "main", New: "x"}, "not tracked")
	// Ambiguous and missing text.
	f.mustOK(t, tools.ToolReadFile, tools.ReadFileArgs{Path: "src/util.go"}, nil)
	f.mustRefuse(t, tools.ToolReplaceText, tools.ReplaceTextArgs{Path: "src/util.go", Old: "twice", New: "x"}, "occurs 2 times")
	f.mustRefuse(t, tools.ToolReplaceText, tools.ReplaceTextArgs{Path: "src/util.go", Old: "absent", New: "x"}, "not found")
	var all tools.ReplaceTextOutput
	f.mustOK(t, tools.ToolReplaceText, tools.ReplaceTextArgs{Path: "src/util.go", Old: "twice", New: "once", All: true}, &all)
	if all.Replacements != 2 {
		t.Errorf("all: %+v", all)
	}
	// Path policy: outside the allowed paths, .git, absolute, symlink.
	f.mustOK(t, tools.ToolReadFile, tools.ReadFileArgs{Path: "docs/guide.txt"}, nil)
	f.mustRefuse(t, tools.ToolReplaceText, tools.ReplaceTextArgs{Path: "docs/guide.txt", Old: "guide", New: "x"}, "not in the allowed paths")
	f.mustRefuse(t, tools.ToolReadFile, tools.ReadFileArgs{Path: ".git/config"}, ".git")
	f.mustRefuse(t, tools.ToolReadFile, tools.ReadFileArgs{Path: "/etc/passwd"}, "absolute")
	os.Symlink("/etc/passwd", filepath.Join(f.w.Dir(), "src", "link"))
	f.mustRefuse(t, tools.ToolReadFile, tools.ReadFileArgs{Path: "src/link"}, "outside the workspace")
	f.mustRefuse(t, tools.ToolReplaceText, tools.ReplaceTextArgs{Path: "src/link", Old: "root", New: "x"}, "symlink")
}

func TestReplaceRollsBack(t *testing.T) {
	f := newFixture(t)
	f.mustOK(t, tools.ToolReadFile, tools.ReadFileArgs{Path: "README.md"}, nil)
	tools.SetReplaceHook(t, func(string) error { return os.ErrDeadlineExceeded })
	res, err := f.tools.Call(context.Background(), tools.ToolReplaceText, json.RawMessage(`{"path":"README.md","old":"demo","new":"changed"}`))
	if err == nil || res.OK || !strings.Contains(err.Error(), "rolled back") {
		t.Fatalf("replace with a failing step = %+v, %v; want an error saying it rolled back", res, err)
	}
	if got := f.file(t, "README.md"); got != sourceFiles["README.md"] {
		t.Errorf("README.md after the rollback = %q", got)
	}
	ents, _ := os.ReadDir(f.w.Dir())
	for _, e := range ents {
		if strings.Contains(e.Name(), ".rivumi-replace-") {
			t.Errorf("temporary %s left", e.Name())
		}
	}
}

func TestArgumentsStrict(t *testing.T) {
	f := newFixture(t)
	f.mustRefuse(t, tools.ToolRunCheck, `{"name":"pass","timeout_seconds":600}`, "the harness owns the timeout")
	f.mustRefuse(t, tools.ToolShell, `{"command":"ls","timeout_seconds":1}`, "the harness owns the timeout")
	f.mustRefuse(t, tools.ToolReadFile, `{"path":"README.md","offset":3}`, "unknown key")
	f.mustRefuse(t, tools.ToolReadFile, `{"path":"README.md","Path":"/etc/passwd"}`, "Path")
	f.mustRefuse(t, tools.ToolReadFile, `{"path":"README.md","path":"/etc/passwd"}`, "duplicate")
	f.mustRefuse(t, tools.ToolReadFile, `{"path":"README.md"} {}`, "data after the JSON value")
	f.mustRefuse(t, tools.ToolReadFile, `[1]`, "not a JSON object")
	f.mustRefuse(t, "rm", `{}`, "unknown tool")
	evs, _ := f.w.Bundle().Events()
	if len(evs) != 8 {
		t.Errorf("%d events for 8 refused calls", len(evs))
	}
}

func TestListAndSearch(t *testing.T) {
	f := newFixture(t)
	os.Symlink("/etc", filepath.Join(f.w.Dir(), "etc"))
	var ls tools.ListFilesOutput
	f.mustOK(t, tools.ToolListFiles, tools.ListFilesArgs{}, &ls)
	var paths []string
	for _, e := range ls.Entries {
		paths = append(paths, e.Path+":"+e.Type)
	}
	got := strings.Join(paths, " ")
	if got != "README.md:file docs:dir docs/guide.txt:file etc:symlink run.sh:file src:dir src/main.go:file src/util.go:file" {
		t.Errorf("list_files = %s", got)
	}
	var st tools.SearchTextOutput
	f.mustOK(t, tools.ToolSearchText, tools.SearchTextArgs{Query: "twice"}, &st)
	if len(st.Matches) != 2 || st.Matches[0].Path != "src/util.go" || st.Matches[0].Line != 3 {
		t.Errorf("search = %+v", st)
	}
	f.mustRefuse(t, tools.ToolSearchText, tools.SearchTextArgs{Query: "x", Path: "etc"}, "symlink")
	f.mustRefuse(t, tools.ToolListFiles, tools.ListFilesArgs{Path: "../"}, `".."`)
}

func TestResultsRedacted(t *testing.T) {
	f := newFixture(t)
	const tok = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	gittest.Write(t, f.w.Dir(), map[string]string{"src/secret.txt": "token " + tok + "\n"})
	res := f.call(t, tools.ToolReadFile, tools.ReadFileArgs{Path: "src/secret.txt"}, nil)
	if strings.Contains(string(res.Output), "ghp_") || !strings.Contains(string(res.Output), `"redacted":true`) {
		t.Errorf("read_file output %s", res.Output)
	}
	// Written content is scanned: the finding is in the output and the event.
	f.mustOK(t, tools.ToolReadFile, tools.ReadFileArgs{Path: "README.md"}, nil)
	var rp tools.ReplaceTextOutput
	f.mustOK(t, tools.ToolReplaceText, tools.ReplaceTextArgs{Path: "README.md", Old: "demo", New: "demo\nkey " + tok}, &rp)
	if len(rp.Findings) != 1 || rp.Findings[0].Kind != "github-token" {
		t.Errorf("replace findings = %+v", rp.Findings)
	}
	evs, _ := f.w.Bundle().Events()
	if last := evs[len(evs)-1]; len(last.Findings) != 1 || strings.Contains(string(last.Args), "ghp_") {
		t.Errorf("replace event = %+v", last)
	}
	raw, _ := os.ReadFile(f.w.Bundle().File(bundle.EventsFile))
	if strings.Contains(string(raw), "ghp_") {
		t.Error("events.jsonl holds the token")
	}
}

func TestSearchBounded(t *testing.T) {
	f := newFixture(t, func(_ *workspace.Config, tc *tools.Config) {
		tc.Limits = tools.Limits{MaxMatches: 1, MaxSearchBytes: 1}
	})
	var st tools.SearchTextOutput
	f.mustOK(t, tools.ToolSearchText, tools.SearchTextArgs{Query: "e"}, &st)
	if !st.Truncated || len(st.Matches) > 1 {
		t.Errorf("bounded search = %+v", st)
	}
}
