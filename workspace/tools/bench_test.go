package tools_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/rivumi/rivumi/workspace"
	"github.com/rivumi/rivumi/workspace/internal/gittest"
	"github.com/rivumi/rivumi/workspace/tools"
)

// BenchmarkCallReadFile: one read_file call, its event, checkpoint and
// session record (each fsync'd) included.
func BenchmarkCallReadFile(b *testing.B) {
	src, sha := gittest.Repo(b, sourceFiles)
	w, err := workspace.Prepare(context.Background(), workspace.PrepareOptions{
		Source: src, Commit: sha, RunRoot: b.TempDir(), Name: "run", Config: workspace.Config{AllowedPaths: []string{"src/**"}}})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	ts, err := tools.New(tools.Config{Workspace: w})
	if err != nil {
		b.Fatal(err)
	}
	defer ts.Close()
	args := json.RawMessage(`{"path":"src/main.go"}`)
	for b.Loop() {
		if res, err := ts.Call(context.Background(), tools.ToolReadFile, args); err != nil || !res.OK {
			b.Fatal(err, res.Error)
		}
	}
}
